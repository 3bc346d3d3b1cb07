import { isScalar, visit, type Document } from 'yaml';

/** A key defined twice in one mapping of a YAML document. */
export interface DuplicateKey {
  /** The key as written (its scalar value as a string). */
  key: string;
  /** Offset in the source of the repeated key. */
  offset: number;
  /** Offset of its first definition. */
  firstOffset: number;
}

/**
 * The keys defined more than once in a mapping of `doc`, in document order of their repeats; one
 * pass over the document with a hash map per mapping, so linear in its size.
 *
 * The YAML library's own check (`uniqueKeys`, on by default) compares every key with every earlier key
 * of its mapping: a topic of 60,000 keywords took 103 s to load with it, 1.3 s without. Parse with
 * `uniqueKeys: false` and call this instead. Keys compare as the library compares them: scalar keys
 * by value (so `1` and `"1"` differ), others (a mapping as a key) never; the merge key `<<` is exempt.
 */
export function findDuplicateKeys(doc: Document): DuplicateKey[] {
  const out: DuplicateKey[] = [];
  visit(doc, {
    Map(_key, map) {
      const first = new Map<unknown, number>();
      for (const pair of map.items) {
        const k = pair.key;
        if (!isScalar(k) || k.value === '<<') continue;
        const offset = k.range?.[0] ?? -1;
        const seen = first.get(k.value);
        if (seen === undefined) first.set(k.value, offset);
        else out.push({ key: String(k.value), offset, firstOffset: seen });
      }
    },
  });
  return out.sort((a, b) => a.offset - b.offset);
}
