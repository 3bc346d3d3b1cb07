import { describe, expect, it } from 'vitest';
import type { Settlement } from '../../src/frontier/frontier.js';
import { Engine, type SourceClaim, type WorkSource } from '../../src/crawl/engine.js';

/** A work source of numbered items that logs its calls and answers settles when told to. */
class Source implements WorkSource<number> {
  readonly log: string[] = [];
  private next = 1;
  private readonly replies: (() => void)[] = [];
  constructor(private readonly total: number, private readonly holdSettles: boolean, readonly claimBatch?: number) {}

  async claim(max: number): Promise<SourceClaim<number>> {
    const n = Math.min(max, this.total - this.next + 1);
    this.log.push(`claim ${max}`);
    if (n <= 0) return { kind: 'empty' };
    const leases = Array.from({ length: n }, () => this.next++);
    return { kind: 'urls', leases };
  }

  settle(w: number, how: Settlement): Promise<boolean> {
    this.log.push(`settle ${w} ${how.state}`);
    if (!this.holdSettles) return Promise.resolve(true);
    return new Promise((resolve) => this.replies.push(() => {
      this.log.push(`answered ${w}`);
      resolve(true);
    }));
  }

  /** Answers the settles sent so far. */
  answer(): void {
    for (const r of this.replies.splice(0)) r();
  }
}

describe('Engine', () => {
  it('frees a slot when an item is handled: the next claim goes out before the settle is answered', async () => {
    const source = new Source(3, true);
    const handled: number[] = [];
    const engine = new Engine<number>({
      source, concurrency: 1,
      handle: async (w) => {
        handled.push(w);
        // the engine claimed this item while the previous settle was unanswered
        if (w > 1) expect(source.log.slice(-2)).toEqual([`settle ${w - 1} done`, 'claim 1']);
        await new Promise((r) => setTimeout(r, 5));
        return { state: 'done' };
      },
    });
    const run = engine.run();
    // answer settles only now and then: the engine must not wait for them to go on
    const timer = setInterval(() => source.answer(), 30);
    const end = await run.finally(() => clearInterval(timer));
    expect(end).toBe('done');
    expect(handled).toEqual([1, 2, 3]);
    // every item settled once, and the run ended only after every settle was answered
    expect(source.log.filter((l) => l.startsWith('settle'))).toEqual(['settle 1 done', 'settle 2 done', 'settle 3 done']);
    expect(source.log.filter((l) => l.startsWith('answered'))).toEqual(['answered 1', 'answered 2', 'answered 3']);
  });

  it('keeps at most `concurrency` items in the pipeline, settles each once, and a handle failure fails the run', async () => {
    const source = new Source(20, false);
    let inPipeline = 0;
    let most = 0;
    const engine = new Engine<number>({
      source, concurrency: 4,
      handle: async (w) => {
        most = Math.max(most, ++inPipeline);
        await new Promise((r) => setTimeout(r, w % 3));
        inPipeline--;
        if (w === 15) throw new Error('boom');
        return { state: w % 2 ? 'done' : 'requeue' };
      },
    });
    await expect(engine.run()).rejects.toThrow('boom');
    expect(most).toBe(4);
    const settled = source.log.filter((l) => l.startsWith('settle')).map((l) => Number(l.split(' ')[1]));
    expect(new Set(settled).size).toBe(settled.length);
    // the failed item is settled done (nothing recorded: the source puts it back), the others as handled
    expect(source.log).toContain('settle 15 done');
    expect(source.log).toContain('settle 2 requeue');
  });

  it('claims from a source whose claims cost a round trip a few free slots at a time, at most a quarter of them', async () => {
    for (const [claimBatch, concurrency, least] of [[8, 16, 4], [3, 16, 3], [8, 6, 1], [undefined, 16, 1]] as const) {
      const source = new Source(200, false, claimBatch);
      let inPipeline = 0;
      let most = 0;
      const engine = new Engine<number>({
        source, concurrency,
        handle: async (w) => {
          most = Math.max(most, ++inPipeline);
          // items end at different times, a few at once now and then
          await new Promise((r) => setTimeout(r, 1 + (w * 7) % 5));
          inPipeline--;
          return { state: 'done' };
        },
      });
      expect(await engine.run()).toBe('done');
      const all = source.log.filter((l) => l.startsWith('claim')).map((l) => Number(l.split(' ')[1]));
      // the claims that found items (then the source is empty: the engine asks again as items end)
      let left = 200;
      const asked = all.filter((n) => (left -= n) + n > 0);
      // the first claim fills every slot; later ones wait for `least` free slots; every item was
      // handled, with all the slots in use at times
      expect(asked[0]).toBe(concurrency);
      expect(asked.every((n) => n >= least)).toBe(true);
      if (least > 1) expect(asked.length).toBeLessThanOrEqual(1 + Math.ceil((200 - concurrency) / least));
      else expect(asked.some((n) => n === 1)).toBe(true);
      expect(source.log.filter((l) => l.startsWith('settle')).length).toBe(200);
      expect(most).toBe(concurrency);
    }
  });
});
