/**
 * Events per second over the last `windowMs`, from samples of a running count (the pages of a
 * crawl, sampled at each progress tick): (count now − count at the oldest sample in the window) /
 * the time between them. Keeps the samples of one window.
 */
export class RecentRate {
  private readonly samples: { at: number; count: number }[] = [];

  constructor(private readonly windowMs = 10_000) {}

  sample(at: number, count: number): void {
    this.samples.push({ at, count });
    // keep one sample at or before the window's start, so the rate covers the whole window
    while (this.samples.length > 2 && this.samples[1].at <= at - this.windowMs) this.samples.shift();
  }

  /** The rate at the latest sample (0 before two samples). */
  perSec(): number {
    if (this.samples.length < 2) return 0;
    const a = this.samples[0];
    const b = this.samples[this.samples.length - 1];
    return b.at > a.at ? ((b.count - a.count) * 1000) / (b.at - a.at) : 0;
  }
}
