/**
 * The host ids of a shared crawl that one client has learnt (from its leases, lookups and intakes),
 * so that its adds name a host by its 4-byte id and the intake script need not look the name up.
 * Host ids hold within the crawl's epoch (redis/hosts.lua), which changes only when the server
 * lost the crawl's keys. Bounded: past `max` names it starts again empty.
 */
export class RedisHostIds {
  private readonly ids = new Map<string, number>();
  /** Names by id, with their bytes (a lease names its host by both: see nameOf). */
  private readonly names = new Map<number, { name: string; bytes: Buffer }>();
  /** The epoch the ids were learnt in ('': none known, no id is given out). */
  epoch = '';

  constructor(private readonly max = 100_000) {}

  get(host: string): number | undefined {
    return this.epoch === '' ? undefined : this.ids.get(host);
  }

  set(host: string, id: number): void {
    if (this.ids.size >= this.max && !this.ids.has(host)) {
      this.ids.clear();
      this.names.clear();
    }
    this.ids.set(host, id);
  }

  /**
   * The name of host `id` whose UTF-8 bytes are b[start, end) (a lease's), learning the id: the
   * name decoded before for this id when its bytes are the same (no decoding, no lookup by name).
   */
  nameOf(id: number, b: Buffer, start: number, end: number): string {
    const known = this.names.get(id);
    if (known && known.bytes.length === end - start) {
      // (a loop: a host name is short, and Buffer.compare's call costs more than the bytes)
      const k = known.bytes;
      let i = 0;
      while (i < k.length && k[i] === b[start + i]) i++;
      if (i === k.length) return known.name;
    }
    const name = b.toString('utf8', start, end);
    this.set(name, id);
    this.names.set(id, { name, bytes: Buffer.from(b.subarray(start, end)) });
    return name;
  }

  /** Forgets every id and starts learning in `epoch` (at the start, or when the server lost the crawl's keys). */
  reset(epoch: string): void {
    this.ids.clear();
    this.names.clear();
    this.epoch = epoch;
  }

  /** Learns the ids the intake script answered (`answer`: 4 bytes each) for the hosts of the adds at `byName`. */
  learn(hosts: readonly { host: string }[], byName: readonly number[], answer: Buffer): void {
    byName.forEach((i, k) => this.set(hosts[i].host, answer.readUInt32BE(4 * k)));
  }
}
