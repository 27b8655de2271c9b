import { isTerminal, type ProcRecord } from "../model/proc-record.js";
import type { InboxEntry } from "./pipeline-store.js";
import { newProcRecord } from "./proc-machine.js";

/** Taken when a run query starts (`KnownUnfinished.queryStarted`), handed back with its answer. */
export interface UnfinishedQuery {
  readonly enqueues: number;
  readonly enqueuing: boolean;
}

/**
 * The unfinished records (PENDING, FAILED) the pump knows without asking the store, so a run comes
 * from memory when the intake that enqueues runs in the same process (issue 32, item 3).
 *
 * States:
 * - **unknown** — after start, a takeover, a slow-path transaction, a refused or failed commit, a
 *   failed enqueue (its answer lost: it may have committed), or a query that hit its limit or ran
 *   while an enqueue was on its way (its answer may hold some of that enqueue's records, or not):
 *   the pump asks the store (`PipelineStore.unfinished`).
 * - **known** — a query returned every unfinished record while no enqueue was on its way; from then
 *   on each enqueue's inserted records are added when it returns, and the pump's commits applied.
 *
 * Memory is a guess the store checks: `commitRun` refuses a run whose first record is not the
 * store's head, or whose records are not the unfinished ones between its first and last id, and a
 * write by anyone else moves the state generation on, which `commitRun` refuses too. Either way the
 * pump forgets and asks again. An idle pump asks again at most every `resyncMs`, so a record another
 * process made PENDING (a replay) is found without a commit to refuse.
 */
export class KnownUnfinished {
  #records: ProcRecord[] | undefined;
  #queriedAt = Number.NEGATIVE_INFINITY;
  /** Enqueues started, ever, and those not returned yet. */
  #enqueues = 0;
  #enqueuing = 0;
  readonly #resyncMs: number;

  constructor(resyncMs: number) {
    this.#resyncMs = resyncMs;
  }

  /**
   * The first `limit` known records, or undefined when the pump must ask the store: nothing is
   * known, or nothing is unfinished and the last query is older than `resyncMs`.
   */
  candidates(limit: number, now: number): readonly ProcRecord[] | undefined {
    const records = this.#records;
    if (records === undefined) return undefined;
    if (records.length === 0 && now - this.#queriedAt >= this.#resyncMs) return undefined;
    return records.slice(0, limit);
  }

  /** A run query is about to be sent. */
  queryStarted(): UnfinishedQuery {
    return { enqueues: this.#enqueues, enqueuing: this.#enqueuing > 0 };
  }

  /**
   * What `PipelineStore.unfinished(0, limit)` returned at `now`: kept when it is everything and no
   * enqueue overlapped the query.
   */
  queried(records: readonly ProcRecord[], limit: number, now: number, query: UnfinishedQuery): void {
    this.#queriedAt = now;
    const overlapped = query.enqueuing || this.#enqueuing > 0 || query.enqueues !== this.#enqueues;
    this.#records = records.length < limit && !overlapped ? [...records] : undefined;
  }

  /** An enqueue of this process's intake is about to be sent. */
  enqueueStarted(): void {
    this.#enqueues += 1;
    this.#enqueuing += 1;
  }

  /**
   * That enqueue returned the records it inserted (`enqueue`'s returned ids only), or failed
   * (`undefined`: it may still have committed, so memory is forgotten).
   */
  enqueueEnded(inserted: readonly InboxEntry[] | undefined, now: number): void {
    this.#enqueuing -= 1;
    const records = this.#records;
    if (inserted === undefined) this.#records = undefined;
    if (records === undefined || inserted === undefined) return;
    for (const e of inserted) {
      const at = insertionPoint(records, e.msgId);
      if (records[at]?.msgId === e.msgId) continue;
      records.splice(at, 0, newProcRecord(e.msgId, e.receivedAt, now, e.traceparent ?? null));
    }
  }

  /**
   * The new states of a committed run's records: terminal ones leave, the others are replaced. A
   * record memory did not hold means memory was not what the run came from: it is forgotten.
   */
  committed(records: readonly ProcRecord[]): void {
    const known = this.#records;
    if (known === undefined) return;
    for (const r of records) {
      const at = insertionPoint(known, r.msgId);
      if (known[at]?.msgId !== r.msgId) {
        this.#records = undefined;
        return;
      }
      if (isTerminal(r.status)) known.splice(at, 1);
      else known[at] = r;
    }
  }

  /** Back to unknown: the next step asks the store. */
  forget(): void {
    this.#records = undefined;
  }
}

/** The index of the first record with an id at or above `msgId` (binary search: records ascend). */
function insertionPoint(records: readonly ProcRecord[], msgId: number): number {
  let lo = 0;
  let hi = records.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (records[mid]!.msgId < msgId) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
