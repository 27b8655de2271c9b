import type { MailboxRow } from "@msgx/core";

/**
 * The rows this process appended and committed, by id, so that `scan` can answer the intake
 * without a query when the rows right above its cursor are all ours (docs/mailbox.md "Scanning
 * what the ingress appended").
 *
 * Only a run of consecutive ids from `afterId + 1` is answered: ids are unique integers, so no
 * other row can sit between two consecutive ones, and every row given was committed (it is held
 * only once its INSERT returned). A row of another writer, an append still in flight, or a
 * forgotten id ends the run there; the next scan from there reads the table. A row given is
 * pending — appended with `STATUS 'VALID'` and no `DATE_PROCESSED`, and nothing processes a row
 * before the intake enqueued it — and its `receivedAt` is the instant the INSERT returned in this
 * process (`DATE_RECEIVED` is the server's clock at the column's precision).
 *
 * Ids at or below a scan's `afterId` are forgotten (the intake passed them); beyond `maxRows`
 * the oldest go first — a follower's ingress appends rows another process's intake scans.
 */
export class AppendedRows {
  readonly #maxRows: number;
  /** Insertion order is append order (near enough): the first key is the oldest held. */
  readonly #receivedAt = new Map<number, number>();

  /** `maxRows` 0 holds nothing: every scan reads the table. */
  constructor(maxRows: number) {
    this.#maxRows = maxRows;
  }

  /** Holds a row whose insert committed. */
  remember(msgId: number, receivedAt: number): void {
    if (this.#maxRows === 0) return;
    this.#receivedAt.set(msgId, receivedAt);
    if (this.#receivedAt.size <= this.#maxRows) return;
    for (const oldest of this.#receivedAt.keys()) {
      this.#receivedAt.delete(oldest);
      if (this.#receivedAt.size <= this.#maxRows) break;
    }
  }

  /**
   * The held rows `afterId + 1, afterId + 2, …` as far as they run unbroken, at most `limit`;
   * undefined when `afterId + 1` is not held (the caller reads the table). Forgets every id at or
   * below `afterId`.
   */
  scan(afterId: number, limit: number): MailboxRow[] | undefined {
    for (const id of this.#receivedAt.keys()) {
      // Held in about id order: the first id above afterId ends the sweep (a straggler below it waits for the bound).
      if (id > afterId) break;
      this.#receivedAt.delete(id);
    }
    const rows: MailboxRow[] = [];
    for (let id = afterId + 1; rows.length < limit; id++) {
      const receivedAt = this.#receivedAt.get(id);
      if (receivedAt === undefined) break;
      rows.push({ msgId: id, receivedAt, pending: true });
    }
    return rows.length === 0 ? undefined : rows;
  }

  /** How many rows are held (for tests). */
  get size(): number {
    return this.#receivedAt.size;
  }
}
