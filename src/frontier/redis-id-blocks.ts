/**
 * Blocks of URL ids that one client of a shared crawl reserves on the server (INCRBY of the crawl's
 * `seq` counter: no other client and no script gives them out), so that the client knows the ids of
 * its adds before the intake answers (Frontier.reserveIds). The next block is asked for while half
 * the current one is left, so ids are nearly always at hand.
 *
 * The ids one client gives out increase in the order it gives them (equal priorities are served in
 * id order, first found first). Between clients, ids follow the order in which their blocks were
 * reserved: blocks are small (256 ids, a few pages' new links) so that ties stay close to first
 * found, first served across workers too (breadth-first gives every URL the same priority).
 *
 * The server's own ids (an intake sent without reserved ids takes the next of `seq`) are above every
 * block reserved before it: {@link RedisIdBlocks.passed} then drops those blocks, and the next ids
 * come from a block reserved after.
 */
export class RedisIdBlocks {
  /** Ids at hand: next..end. */
  private next = 1;
  private end = 0;
  /** The next block, once reserved. */
  private ahead: { start: number; end: number } | null = null;
  private fetching: Promise<void> | null = null;
  /** Counts the drops: a block reserved before one is not used. */
  private generation = 0;

  /** `reserve(n)` reserves n ids on the server and returns the largest (INCRBY seq n). */
  constructor(private readonly reserve: (n: number) => Promise<number>, private readonly size = 256) {}

  /** `n` ids in increasing order: at once when at hand, else once a block is reserved. */
  take(n: number): number[] | Promise<number[]> {
    if (this.end - this.next + 1 < n && this.ahead && this.ahead.end - this.ahead.start + 1 >= n) {
      this.next = this.ahead.start;
      this.end = this.ahead.end;
      this.ahead = null;
    }
    if (this.end - this.next + 1 < n) {
      // (what is left of the current block is skipped: ids need not be dense)
      if (this.ahead) this.ahead = null;
      return this.fetch(Math.max(n, this.size)).then(() => this.take(n));
    }
    const out = new Array<number>(n);
    for (let i = 0; i < n; i++) out[i] = this.next + i;
    this.next += n;
    if (this.end - this.next + 1 < this.size / 2 && !this.ahead) void this.fetch(this.size).catch(() => undefined);
    return out;
  }

  /** Resolves once ids are at hand (a block reserved), without giving any out. */
  async prepare(): Promise<void> {
    if (this.end < this.next && !this.ahead) await this.fetch(this.size);
  }

  /** Ids at hand now, or null (a block is then asked for). */
  takeNow(n: number): number[] | null {
    const r = this.take(n);
    if (Array.isArray(r)) return r;
    r.catch(() => undefined);
    return null;
  }

  /** The server gave ids of its own, above every block reserved so far: those blocks are not used. */
  passed(): void {
    this.generation++;
    this.next = 1;
    this.end = 0;
    this.ahead = null;
    this.fetching = null;
  }

  private fetch(n: number): Promise<void> {
    if (this.fetching) return this.fetching;
    const generation = this.generation;
    const p = this.reserve(n).then((top) => {
      if (generation !== this.generation) return;
      this.fetching = null;
      const block = { start: top - n + 1, end: top };
      if (this.end - this.next + 1 <= 0) {
        this.next = block.start;
        this.end = block.end;
      } else this.ahead = block;
    }, (err: unknown) => {
      if (generation === this.generation) this.fetching = null;
      throw err;
    });
    this.fetching = p;
    return p;
  }
}
