/**
 * The estimated harvest after n pages, `[n, relevant/n]`, kept as pages come for a live chart (the
 * eval report's curve, drawn while the crawl runs): n = 1, then every `step` pages, and the latest
 * n. When the curve reaches `max` points every other one is dropped and the step doubles, so it
 * stays bounded and evenly spaced whatever the crawl's length. O(1) per page (amortised).
 */
export class HarvestCurve {
  private readonly kept: [number, number][] = [];
  private step = 1;
  private last: [number, number] | null = null;

  constructor(private readonly max = 400) {}

  /** The n-th page: `relevant` of the first n pages were relevant. */
  add(n: number, relevant: number): void {
    const point: [number, number] = [n, relevant / n];
    this.last = point;
    if (n !== 1 && n % this.step !== 0) return;
    this.kept.push(point);
    if (this.kept.length < this.max) return;
    this.step *= 2;
    let w = 1; // keeps n = 1 and the multiples of the new step
    for (let r = 1; r < this.kept.length; r++) if (this.kept[r][0] % this.step === 0) this.kept[w++] = this.kept[r];
    this.kept.length = w;
  }

  /** The points, in order of n, ending at the latest page. */
  points(): [number, number][] {
    const out = this.kept.slice();
    if (this.last && (out.length === 0 || out[out.length - 1][0] !== this.last[0])) out.push(this.last);
    return out;
  }
}
