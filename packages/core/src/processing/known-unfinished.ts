import { isTerminal, type ProcRecord } from "../model/proc-record.js";
import type { InboxEntry } from "./pipeline-store.js";
import { newProcRecord } from "./proc-machine.js";

/**
 * How much of the store's unfinished records `KnownUnfinished` holds.
 *
 * - **unknown** — entered at start, after a takeover, a slow-path transaction, a refused or failed
 *   commit, a failed enqueue (its answer lost: it may have committed), a commit of a record it did
 *   not hold, or a query from the head that ran while an enqueue was on its way (its answer may
 *   hold some of that enqueue's records, or not). Nothing is given: the pump asks the store from
 *   the head (`PipelineStore.unfinished(0, …)`). Left by a query that no enqueue overlapped.
 * - **prefix** — entered when a query that no enqueue overlapped hit its limit: every unfinished
 *   record up to the last id it returned is held, what lies beyond is not. Runs come from the
 *   prefix while it holds as many records as the pump asks for; then the pump asks the store for
 *   what follows the prefix (`unfinished(last + 1, …)`), whose answer extends it (a prefix again,
 *   or complete when the answer is short of its limit) unless an enqueue overlapped it. An enqueue
 *   that returns adds only its records within the prefix: one beyond it may have records between
 *   it and the prefix that nobody reported.
 * - **complete** — entered when a query that no enqueue overlapped returned fewer records than its
 *   limit: every unfinished record is held. Each enqueue's inserted records are added when it
 *   returns. An idle pump (nothing held) asks the store from the head again after `resyncMs`.
 *
 * In the prefix and complete states, the pump's commits are applied as they return.
 */
export const UnfinishedKnowledge = { UNKNOWN: "unknown", PREFIX: "prefix", COMPLETE: "complete" } as const;
export type UnfinishedKnowledge = (typeof UnfinishedKnowledge)[keyof typeof UnfinishedKnowledge];

/** A run query to send, `PipelineStore.unfinished(from, limit)`, taken when it starts and handed back with its answer. */
export interface UnfinishedQuery {
  readonly from: number;
  readonly limit: number;
  /** The records before `from` the answer continues: the prefix held when the query started (none from the head). */
  readonly before: readonly ProcRecord[];
  readonly enqueues: number;
  readonly enqueuing: boolean;
  /** Commits applied (`committed`), ever, when it started. */
  readonly commits: number;
}

/**
 * The unfinished records (PENDING, FAILED) the pump knows without asking the store, so a run comes
 * from memory when the intake that enqueues runs in the same process (issue 32, item 3); its states
 * are {@link UnfinishedKnowledge}'s.
 *
 * Memory is a guess the store checks: `commitRun` refuses a run whose first record is not the
 * store's head, or whose records are not the unfinished ones between its first and last id, and a
 * write by anyone else moves the state generation on, which `commitRun` refuses too. Either way the
 * pump forgets and asks again. An idle pump asks again at most every `resyncMs`, so a record another
 * process made PENDING (a replay) is found without a commit to refuse.
 */
export class KnownUnfinished {
  #state: UnfinishedKnowledge = UnfinishedKnowledge.UNKNOWN;
  /** Ascending by id; empty when unknown. */
  #records: ProcRecord[] = [];
  /** In the prefix state: the highest id the prefix covers. */
  #through = 0;
  #queriedAt = Number.NEGATIVE_INFINITY;
  /** Enqueues started, ever, and those not returned yet. */
  #enqueues = 0;
  #enqueuing = 0;
  /** Commits applied, ever: a query that a commit overlapped may hold a record the commit finished. */
  #commits = 0;
  readonly #resyncMs: number;

  constructor(resyncMs: number) {
    this.#resyncMs = resyncMs;
  }

  get state(): UnfinishedKnowledge {
    return this.#state;
  }

  /**
   * The first `limit` unfinished records (fewer only when that is all of them), or undefined when
   * the pump must ask the store: nothing is known, the prefix holds fewer than `limit`, or nothing
   * is unfinished and the last query is older than `resyncMs`.
   */
  candidates(limit: number, now: number): readonly ProcRecord[] | undefined {
    const records = this.#records;
    switch (this.#state) {
      case UnfinishedKnowledge.UNKNOWN:
        return undefined;
      case UnfinishedKnowledge.PREFIX:
        return records.length >= limit ? records.slice(0, limit) : undefined;
      case UnfinishedKnowledge.COMPLETE:
        return records.length === 0 && now - this.#queriedAt >= this.#resyncMs ? undefined : records.slice(0, limit);
    }
  }

  /**
   * The query to send when `candidates(limit)` gave none: with a prefix, the `limit` records that
   * follow it (so a prefix that fell short lasts a few steps again); otherwise `limit` from the head.
   */
  queryStarted(limit: number): UnfinishedQuery {
    const continues = this.#state === UnfinishedKnowledge.PREFIX;
    const before = continues ? [...this.#records] : [];
    return { from: continues ? this.#through + 1 : 0, limit, before, enqueues: this.#enqueues, enqueuing: this.#enqueuing > 0, commits: this.#commits };
  }

  /**
   * What `PipelineStore.unfinished(query.from, query.limit)` returned at `now`; gives the
   * unfinished records from the head it makes (the prefix it continued, then the answer). Kept
   * when no enqueue and no commit overlapped the query and, for a continuation, the prefix is still
   * the one it continued.
   */
  queried(answer: readonly ProcRecord[], now: number, query: UnfinishedQuery): readonly ProcRecord[] {
    this.#queriedAt = now;
    const overlapped = query.enqueuing || this.#enqueuing > 0 || query.enqueues !== this.#enqueues || query.commits !== this.#commits;
    const continues = query.from > 0;
    const samePrefix = continues && this.#state === UnfinishedKnowledge.PREFIX && this.#through === query.from - 1;
    const records = [...(samePrefix ? this.#records : query.before), ...answer];
    if (continues && !samePrefix) return records;
    if (overlapped) {
      // A prefix stays what it was: only the answer beyond it may miss that enqueue's records.
      if (!continues) this.forget();
      return records;
    }
    this.#records = [...records];
    const last = answer[answer.length - 1];
    if (answer.length < query.limit || last === undefined) {
      this.#state = UnfinishedKnowledge.COMPLETE;
    } else {
      this.#state = UnfinishedKnowledge.PREFIX;
      this.#through = last.msgId;
    }
    return records;
  }

  /** An enqueue of this process's intake is about to be sent. */
  enqueueStarted(): void {
    this.#enqueues += 1;
    this.#enqueuing += 1;
  }

  /**
   * That enqueue returned the records it inserted (`enqueue`'s returned ids only), or failed
   * (`undefined`: it may still have committed, so memory is forgotten). With a prefix, only the
   * records within it are added.
   */
  enqueueEnded(inserted: readonly InboxEntry[] | undefined, now: number): void {
    this.#enqueuing -= 1;
    if (inserted === undefined) this.forget();
    if (inserted === undefined || this.#state === UnfinishedKnowledge.UNKNOWN) return;
    const records = this.#records;
    for (const e of inserted) {
      if (this.#state === UnfinishedKnowledge.PREFIX && e.msgId > this.#through) continue;
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
    this.#commits += 1;
    if (this.#state === UnfinishedKnowledge.UNKNOWN) return;
    const known = this.#records;
    for (const r of records) {
      const at = insertionPoint(known, r.msgId);
      if (known[at]?.msgId !== r.msgId) {
        this.forget();
        return;
      }
      if (isTerminal(r.status)) known.splice(at, 1);
      else known[at] = r;
    }
  }

  /** Back to unknown: the next step asks the store from the head. */
  forget(): void {
    this.#state = UnfinishedKnowledge.UNKNOWN;
    this.#records = [];
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
