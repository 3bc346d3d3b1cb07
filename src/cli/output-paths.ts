import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { TopicrawlError } from '../errors.js';

/**
 * Output paths checked before any work starts, so that a run of many crawls never ends in an error
 * about where to write its result. Both throw E_USAGE naming the flag.
 */

/** A file to write (`tune --out`): not a folder, in an existing folder, and writable. */
export function checkOutFile(file: string, flag: string): void {
  const dir = dirname(file);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw usage(flag, file, `folder ${dir} does not exist`);
  if (existsSync(file)) {
    if (!statSync(file).isFile()) throw usage(flag, file, 'it exists and is not a file');
    if (!writable(file)) throw usage(flag, file, 'it is not writable');
  } else if (!writable(dir)) throw usage(flag, file, `folder ${dir} is not writable`);
}

/**
 * A folder to write `files` into (`eval --out`), made later if missing: E_USAGE if it is something
 * else than a folder, if it could not be made (its nearest existing parent is not a writable
 * folder), or if one of the files is there as something other than a file. Nothing is created.
 */
export function checkOutDir(dir: string, files: readonly string[], flag: string): void {
  let existing = dir;
  while (!existsSync(existing) && dirname(existing) !== existing) existing = dirname(existing);
  if (!statSync(existing).isDirectory()) throw usage(flag, dir, existing === dir ? 'it exists and is not a folder' : `${existing} is not a folder`);
  if (!writable(existing)) throw usage(flag, dir, `${existing} is not writable`);
  for (const f of files) {
    const p = join(dir, f);
    if (existsSync(p) && !statSync(p).isFile()) throw usage(flag, dir, `${f} there is not a file`);
  }
}

function writable(p: string): boolean {
  try {
    accessSync(p, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

function usage(flag: string, path: string, why: string): TopicrawlError {
  return new TopicrawlError('E_USAGE', `${flag} ${path}: ${why}`, { flag, path });
}
