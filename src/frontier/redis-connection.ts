import type { Socket } from 'node:net';
import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import { TopicrawlError } from '../errors.js';

/** Where the shared frontier lives: `redis://[user:password@]host:port/db`. */
export interface RedisAddress {
  host: string;
  port: number;
  db: number;
  username?: string;
  password?: string;
  tls: boolean;
}

/** How hard a {@link RedisConnection} tries. */
export interface RedisConnectionOptions {
  /** Attempts to connect before the first answer (default 3), with back-off 100 ms, 200 ms, … */
  connectAttempts?: number;
  /** Reconnection attempts after the server went away (default 10), back-off doubling up to 2 s (~15 s in all). */
  reconnectAttempts?: number;
  /** Connect timeout of one attempt (ms, default 2000). */
  connectTimeoutMs?: number;
}

/** Parses `redis://host:port/db` (also `rediss://` for TLS). Throws E_CONFIG for anything else. */
export function parseRedisUrl(url: string): RedisAddress {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new TopicrawlError('E_CONFIG', `--frontier ${url}: not a URL (expected redis://host:port/db)`, { key: 'frontier', url });
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') {
    throw new TopicrawlError('E_CONFIG', `--frontier ${url}: scheme ${u.protocol} is not redis: or rediss:`, { key: 'frontier', url });
  }
  const path = u.pathname.replace(/^\//, '');
  const db = path === '' ? 0 : Number(path);
  const port = u.port === '' ? 6379 : Number(u.port);
  if (!Number.isInteger(db) || db < 0 || !Number.isInteger(port) || port <= 0 || port > 65535 || !u.hostname) {
    throw new TopicrawlError('E_CONFIG', `--frontier ${url}: expected redis://host:port/db with a database number`, { key: 'frontier', url });
  }
  const host = u.hostname.replace(/^\[(.*)\]$/, '$1');
  return {
    host, port, db, tls: u.protocol === 'rediss:',
    username: u.username ? decodeURIComponent(u.username) : undefined,
    password: u.password ? decodeURIComponent(u.password) : undefined,
  };
}

/**
 * The Lua scripts of the shared frontier, by command name: each is `common.lua` followed by these
 * files (`leases.lua`: settling, and what a client sends with its next call).
 */
const SCRIPTS: Record<string, string[]> = {
  tcClaim: ['leases', 'claim'], tcSettle: ['leases', 'settle'], tcIntake: ['leases', 'intake'], tcKnown: ['leases', 'known'], tcHosts: ['hosts'],
};

/**
 * A script's source: `common.lua`, the parts but the last, then the last (the script proper) as a
 * function whose reply is returned once the host states it changed are written (hosts_flush in
 * common.lua: whichever way the script ends).
 */
function scriptSource(parts: string[]): string {
  // (from the package's dist/ or src/ folder: this code may run from a bundle chunk in dist/cli/)
  const dir = new URL('../frontier/redis/', import.meta.url);
  const read = (name: string) => readFileSync(new URL(`${name}.lua`, dir), 'utf8');
  const main = parts[parts.length - 1];
  return [...['common', ...parts.slice(0, -1)].map(read), `local function main()\n${read(main)}\nend\nlocal reply = main()\nhosts_flush()\nreturn reply\n`].join('\n');
}

/** The script commands {@link RedisConnection.connect} defines on the client (one key: the crawl's `ready` zset, for routing). */
export interface FrontierCommands {
  tcClaim(key: string, ...args: (string | number | Buffer)[]): Promise<unknown>;
  /** tcClaim with binary replies (Buffers): lease tokens are binary. */
  tcClaimBuffer(key: string, ...args: (string | number | Buffer)[]): Promise<unknown>;
  tcSettle(key: string, ...args: (string | number | Buffer)[]): Promise<unknown>;
  tcIntake(key: string, ...args: (string | number | Buffer)[]): Promise<unknown>;
  /** tcIntake with binary replies: the host ids it answers are packed. */
  tcIntakeBuffer(key: string, ...args: (string | number | Buffer)[]): Promise<unknown>;
  tcKnown(key: string, ...args: (string | number | Buffer)[]): Promise<unknown>;
  /** tcKnown with binary replies: each known URL's figures packed as doubles. */
  tcKnownBuffer(key: string, ...args: (string | number | Buffer)[]): Promise<unknown>;
  tcHosts(key: string, ...args: (string | number | Buffer)[]): Promise<unknown>;
}

/**
 * One connection to the Redis server of a shared frontier. Connects when {@link RedisConnection.connect}
 * is called, trying a few times with back-off; reconnects (bounded, with back-off) when the server
 * goes away, commands waiting meanwhile. Every failure reaches the caller as a TopicrawlError
 * E_REDIS naming the server, never a client library's stack trace. The Lua scripts are loaded once
 * per connection (ioredis defineCommand: EVALSHA, EVAL on NOSCRIPT).
 */
export class RedisConnection {
  readonly address: RedisAddress;
  readonly client: Redis & FrontierCommands;
  private lastError = '';
  private connected = false;
  private closing = false;
  private gathering = false;

  constructor(readonly url: string, opts: RedisConnectionOptions = {}) {
    this.address = parseRedisUrl(url);
    const connectAttempts = opts.connectAttempts ?? 3;
    const reconnectAttempts = opts.reconnectAttempts ?? 10;
    const a = this.address;
    const client = new Redis({
      host: a.host, port: a.port, db: a.db, username: a.username, password: a.password,
      tls: a.tls ? {} : undefined,
      lazyConnect: true,
      connectTimeout: opts.connectTimeoutMs ?? 2000,
      // a command waits through the reconnection attempts, then fails (E_REDIS); one sent but not
      // answered when the connection broke is sent again (the scripts tolerate that: see settle.lua)
      maxRetriesPerRequest: reconnectAttempts,
      enableAutoPipelining: false,
      retryStrategy: (times: number) => {
        if (this.closing) return null;
        const limit = this.connected ? reconnectAttempts : connectAttempts - 1;
        return times > limit ? null : Math.min(2000, 100 * 2 ** (times - 1));
      },
    });
    client.on('error', (err: Error) => {
      this.lastError = (err as NodeJS.ErrnoException).code ?? err.message;
    });
    for (const [command, parts] of Object.entries(SCRIPTS)) client.defineCommand(command, { numberOfKeys: 1, lua: scriptSource(parts) });
    this.client = client as Redis & FrontierCommands;
  }

  /** Where the server is, for messages. */
  get where(): string {
    return `redis://${this.address.host}:${this.address.port}/${this.address.db}`;
  }

  /** Connects (a few attempts with back-off). Throws E_REDIS when the server does not answer. */
  async connect(): Promise<this> {
    const c = this.client;
    if (c.status === 'ready') return this;
    await new Promise<void>((resolve, reject) => {
      const onReady = () => { c.off('end', onEnd); resolve(); };
      const onEnd = () => { c.off('ready', onReady); reject(this.error('cannot connect to')); };
      c.once('ready', onReady);
      c.once('end', onEnd);
      c.connect().catch(() => { /* retried by retryStrategy; 'end' reports the failure */ });
    });
    this.connected = true;
    return this;
  }

  /** Runs a command, turning a connection failure into E_REDIS (a script's own error keeps its message). */
  async run<T>(what: string, fn: (client: Redis & FrontierCommands) => Promise<T>): Promise<T> {
    if (this.client.status !== 'ready' && !this.connected) await this.connect();
    this.gather();
    try {
      return await fn(this.client);
    } catch (err) {
      if (err instanceof TopicrawlError) throw err;
      const msg = err instanceof Error ? err.message : String(err);
      if (/^(ERR|WRONGTYPE|NOSCRIPT|BUSY|OOM|READONLY|MISCONF|NOAUTH|WRONGPASS|TC_)/.test(msg)) {
        throw new TopicrawlError('E_REDIS', `${this.where}: ${what} failed: ${msg.split('\n')[0]}`, { url: this.where }, { cause: err });
      }
      if (this.lastError === '') this.lastError = msg;
      throw this.error(`${what}: lost the connection to`, err);
    }
  }

  /**
   * Holds the commands sent until the event loop's next turn (the socket corked), so that those of one
   * turn (a page's intake and the next page's lookup, say) go in one write: each write wakes the server,
   * and its reply wakes this process.
   */
  private gather(): void {
    if (this.gathering) return;
    const stream = (this.client as unknown as { stream?: Socket }).stream;
    if (!stream || stream.destroyed || !stream.writable) return;
    this.gathering = true;
    stream.cork();
    setImmediate(() => this.flush());
  }

  /** Writes the commands gathered so far now, not at the event loop's next turn. */
  flush(): void {
    if (!this.gathering) return;
    this.gathering = false;
    (this.client as unknown as { stream?: Socket }).stream?.uncork();
  }

  private error(what: string, cause?: unknown): TopicrawlError {
    const why = this.lastError ? ` (${this.lastError})` : '';
    return new TopicrawlError('E_REDIS', `${what} the shared frontier at ${this.where}${why}; is redis-server running there?`,
      { url: this.where, reason: this.lastError || null }, cause ? { cause } : undefined);
  }

  /** Closes the connection (waits for the commands sent). */
  async close(): Promise<void> {
    this.closing = true;
    if (this.client.status === 'end') return;
    if (this.client.status === 'ready') {
      try {
        await this.client.quit();
        return;
      } catch { /* gone already */ }
    }
    this.client.disconnect();
  }
}
