import { TopicrawlError } from '../errors.js';

/** The exit code for an error: 2 for user errors, 130 for Ctrl-C (E_INTERRUPTED), 1 otherwise (E_STORE, E_REDIS and E_WARC included). */
export function exitCodeOf(err: unknown): number {
  if (err instanceof TopicrawlError && err.code === 'E_INTERRUPTED') return 130;
  // a store or a shared frontier that fails is not the user's mistake
  return err instanceof TopicrawlError && err.fatal && err.code !== 'E_STORE' && err.code !== 'E_REDIS' && err.code !== 'E_WARC' ? 2 : 1;
}

/** The one-line message for an error, never a stack trace (unless TOPICRAWL_DEBUG is set). */
export function errorLines(err: unknown): string {
  if (err instanceof TopicrawlError) return `topicrawl: ${err.message} [${err.code}]\n`;
  const msg = err instanceof Error ? err.message : String(err);
  const stack = process.env.TOPICRAWL_DEBUG ? `${(err as Error)?.stack ?? ''}\n` : '';
  return `topicrawl: unexpected error: ${msg.split('\n')[0]} [E_INTERNAL]\n${stack}`;
}
