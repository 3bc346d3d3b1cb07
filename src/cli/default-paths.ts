import { TopicrawlError } from '../errors.js';

/**
 * A file name made from a topic's `name` (the crawl file `<name>.db`, the tuned topic
 * `<name>.tuned.yaml`, eval's folder `eval-out/<name>-<corpus>`), in the folder it is meant for.
 * A name that would reach another folder (`../../etc/x`, `a/b`, `..`) is refused with E_USAGE,
 * naming the flag that gives the path instead: the topic file must never choose where we write.
 */
export function fileNameFromTopic(name: string, suffix: string, flag: string): string {
  const bad = /[/\\\0]/.test(name) ? 'it contains a path separator' : name === '.' || name === '..' ? 'it names a folder' : name.trim() === '' ? 'it is blank' : null;
  if (bad) throw new TopicrawlError('E_USAGE', `topic name ${JSON.stringify(name)} cannot be used as a file name (${bad}): give ${flag}`, { flag, name });
  return `${name}${suffix}`;
}
