import type Database from 'better-sqlite3';
import { powerOfTwoAtLeast } from '../frontier/frontier-statements.js';

/** Hosts per UPDATE of {@link HostBumps.flush}; a batch is padded to a power of two with its last host. */
const CHUNK = 64;

/**
 * The per-host page and error counts of a group of page records, added up in memory and written in
 * one statement when the group commits (instead of one UPDATE per page). The counts are part of the
 * group: written inside its transaction before COMMIT, dropped with it if SQLite rolls it back.
 */
export class HostBumps {
  private readonly pending = new Map<number, [fetched: number, errors: number]>();
  private readonly statements = new Map<number, Database.Statement>();

  constructor(private readonly db: Database.Database) {}

  add(hostId: number, fetched: number, errors: number): void {
    const b = this.pending.get(hostId);
    if (b) {
      b[0] += fetched;
      b[1] += errors;
    } else this.pending.set(hostId, [fetched, errors]);
  }

  /** Writes the counts added since the last flush (one UPDATE per 64 hosts). */
  flush(): void {
    if (this.pending.size === 0) return;
    const rows = [...this.pending];
    this.pending.clear();
    for (let at = 0; at < rows.length; at += CHUNK) {
      const n = Math.min(CHUNK, rows.length - at);
      const k = powerOfTwoAtLeast(n);
      const params: number[] = [];
      // (a host repeated as padding updates its row once: UPDATE … FROM uses one matching row per target row)
      for (let i = 0; i < k; i++) {
        const [id, [fetched, errors]] = rows[at + Math.min(i, n - 1)];
        params.push(id, fetched, errors);
      }
      this.statement(k).run(params);
    }
  }

  /** Forgets the counts not written (their group was rolled back). */
  drop(): void {
    this.pending.clear();
  }

  private statement(k: number): Database.Statement {
    let st = this.statements.get(k);
    if (!st) {
      st = this.db.prepare(
        `UPDATE hosts SET fetched = fetched + v.column2, errors = errors + v.column3
         FROM (VALUES ${new Array(k).fill('(?, ?, ?)').join(', ')}) AS v WHERE hosts.id = v.column1`,
      );
      this.statements.set(k, st);
    }
    return st;
  }
}
