/**
 * Runs async tasks one after another, in the order they were given: one page's record (frontier
 * lookup, intake, store) completes before the next page's starts, so two pages of one process never
 * interleave their reads and writes. A task's failure is its caller's; the next task runs anyway.
 */
export class Serial {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.tail.then(fn);
    this.tail = result.catch(() => undefined);
    return result;
  }
}
