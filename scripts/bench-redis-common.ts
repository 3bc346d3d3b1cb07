/**
 * What the shared-frontier benchmarks (bench-distributed.ts, bench-frontier-ab.ts) share: their URLs
 * and the server's script time.
 */
import type { NewUrl } from '../src/frontier/frontier.js';
import { mulberry32 } from '../src/eval/prng.js';
import { urlHash } from '../src/url/url-hash.js';

/**
 * The benchmark's URLs in order, from a fixed PRNG: URL i is `http://h<k>.bench.test/p/<i>.html`
 * with host k uniform in [0, hosts), depth i % 7 and a priority in [0, 1] with three decimals (many
 * ties: first in, first out). Every call starts the same sequence again.
 */
export function benchUrls(hosts: number): (i: number) => NewUrl {
  const rng = mulberry32(1);
  return (i) => {
    const host = `h${Math.floor(hosts * rng.next())}.bench.test`;
    const url = `http://${host}/p/${i}.html`;
    return { hash: urlHash(url), url, host, depth: i % 7, priority: Math.round(rng.next() * 1000) / 1000, life: 3, parentId: null, anchor: null };
  };
}

/** Microseconds the server spent in script calls so far (INFO commandstats: evalsha and eval). */
export async function scriptUsec(client: { info(section: string): Promise<string> }): Promise<number> {
  const info = await client.info('commandstats');
  let us = 0;
  for (const m of info.matchAll(/cmdstat_(?:evalsha|eval):calls=\d+,usec=(\d+)/g)) us += Number(m[1]);
  return us;
}
