/**
 * Orders the pages' frontier lookups so that they can be sent ahead of their page's serial part
 * (Serial) and still see everything the pages before them added: a page takes a turn when its
 * analysis is done, and its lookup (Frontier.known) is sent once the page before it has sent its
 * intake, or has ended without one. The lookup's reply then comes back while the page before is
 * still being recorded, instead of after.
 *
 * What a lookup sent this early does not see yet is what the page before does after its intake:
 * the strategy's own priority updates (priorities only; no strategy decides from a known URL's
 * priority) and the outcome of its lease.
 */
export class LookupGate {
  private last: Promise<void> = Promise.resolve();

  /**
   * The next turn: `ready` resolves when the turn before it opened; `open()` (idempotent) lets the
   * next turn go: call it once this page's intake is sent, and in any case when the page ends.
   */
  turn(): { ready: Promise<void>; open: () => void } {
    const ready = this.last;
    let open!: () => void;
    this.last = new Promise<void>((resolve) => (open = resolve));
    return { ready, open };
  }
}
