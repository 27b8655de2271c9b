import type { AuditRow, BackfillTodo, CommitRunOptions, InboxEntry, IntakeState, LoadedRunState, PipelineStore, PipelineTx, ProcRecord, ProcStatus, RecordFilter, RecordGroup, RunDecision } from "@msgx/core";
import type { Kysely } from "kysely";
import type { LockKeys } from "./lock-keys.js";
import { pgCall } from "./pg-error-map.js";
import { PgPipelineTx } from "./pg-pipeline-tx.js";
import { commitRun } from "./pg-commit-run.js";
import { pipelineTransaction, retryOnConflict } from "./pg-transaction.js";
import { PipelineStoreSettings, type PipelineStoreOptions } from "./pg-store-settings.js";
import { audits } from "./queries/audit.js";
import { completeBackfill, deferBackfill, dueBackfill } from "./queries/backfill-todo.js";
import type { Db } from "./queries/db.js";
import { intakeState } from "./queries/pipeline-epoch.js";
import { enqueue, getRecord, groupRecords, head, listRecords, unfinished } from "./queries/proc-state.js";
import { readRunState } from "./queries/run-state.js";
import type { MsgxDatabase } from "./rows/tables.js";

/** The sweep leaves a fresh todo alone this long: the pump backfills right after its commit. */
export const PG_BACKFILL_FIRST_DELAY_MS = 30_000;

export interface PgPipelineStoreOptions extends PipelineStoreOptions {
  /** Default {@link PG_BACKFILL_FIRST_DELAY_MS}. */
  readonly backfillFirstDelayMs?: number;
}

/**
 * `PipelineStore` on PostgreSQL through kysely: the pg dialect or the in-repo PGlite dialect.
 * Tables are unqualified: put the schema on the connections' search path (`pgPoolConfig` does).
 *
 * A pipeline transaction takes `pg_advisory_xact_lock` (one writer at a time, the in-memory
 * store's serial tail) and reads the leadership epoch under it; a stale `fence` is refused before
 * anything is written. A leader change bumps the epoch under the same lock, so a commit of the old
 * leader is either entirely before the new leader's first read or refused.
 *
 * The state generation (`pipeline_generation`, 0032) moves on in every `transaction` that writes a
 * run (`applyRun`, in its first statement, under the pipeline lock); a transaction that only reads
 * or appends audits leaves it, so an operator's dry run does not make the leader reload. `commitRun`
 * checks it under the same lock and never moves it.
 */
export class PgPipelineStore implements PipelineStore {
  readonly #db: Db;
  readonly #settings: PipelineStoreSettings;
  readonly #backfillFirstDelayMs: number;

  constructor(db: Kysely<MsgxDatabase>, options: PgPipelineStoreOptions = {}) {
    this.#db = db;
    this.#settings = new PipelineStoreSettings(options);
    this.#backfillFirstDelayMs = options.backfillFirstDelayMs ?? PG_BACKFILL_FIRST_DELAY_MS;
  }

  /** The advisory lock keys this store uses. */
  get lockKeys(): LockKeys {
    return this.#settings.keys;
  }

  enqueue(entries: readonly InboxEntry[], intake: IntakeState): Promise<readonly number[]> {
    return pgCall("enqueue", () => enqueue(this.#db, entries, intake, this.#settings.clock.now()));
  }

  intakeState(): Promise<IntakeState | undefined> {
    return pgCall("intakeState", () => intakeState(this.#db));
  }

  head(): Promise<ProcRecord | undefined> {
    return pgCall("head", () => head(this.#db));
  }

  unfinished(fromMsgId: number, limit: number): Promise<readonly ProcRecord[]> {
    return pgCall("unfinished", () => unfinished(this.#db, fromMsgId, limit));
  }

  get(msgId: number): Promise<ProcRecord | undefined> {
    return pgCall("get", () => getRecord(this.#db, msgId));
  }

  list(filter: RecordFilter): Promise<readonly ProcRecord[]> {
    return pgCall("list", () => listRecords(this.#db, filter));
  }

  groups(statuses: readonly ProcStatus[], idsPerGroup: number): Promise<readonly RecordGroup[]> {
    return pgCall("groups", () => groupRecords(this.#db, statuses, idsPerGroup));
  }

  /** The state generation moves on with `PipelineTx.applyRun` (no round trip of its own). */
  transaction<T>(fn: (tx: PipelineTx) => Promise<T>, options: { readonly fence?: number } = {}): Promise<T> {
    const lock = this.#settings.lock("pipeline", options.fence);
    return pipelineTransaction(this.#db, lock, (trx) => fn(new PgPipelineTx(trx, this.#settings.clock.now(), this.#backfillFirstDelayMs)));
  }

  /** One statement, one snapshot, no lock (`readRunState`). */
  loadRunState(keys: readonly string[], flids: readonly string[]): Promise<LoadedRunState> {
    return pgCall("loadRunState", async () => {
      const { generation, owners, flights } = await readRunState(this.#db, keys, flids);
      return { generation, owners, flights: new Map([...flights.stored, ...flights.retired]) };
    });
  }

  /** One round trip (`commitRun` of `pg-commit-run.ts`), retried as a transaction is on a deadlock. */
  commitRun(decision: RunDecision, options: CommitRunOptions): Promise<readonly number[]> {
    const context = { keys: this.#settings.keys, now: this.#settings.clock.now(), backfillFirstDelayMs: this.#backfillFirstDelayMs };
    return retryOnConflict(this.#settings.conflictAttempts, () => commitRun(this.#db, decision, options, context));
  }

  audits(limit: number, beforeAuditId?: number): Promise<readonly AuditRow[]> {
    return pgCall("audits", () => audits(this.#db, limit, beforeAuditId));
  }

  dueBackfill(now: number, limit: number): Promise<readonly BackfillTodo[]> {
    return pgCall("dueBackfill", () => dueBackfill(this.#db, now, limit));
  }

  completeBackfill(msgIds: readonly number[]): Promise<void> {
    return pgCall("completeBackfill", () => completeBackfill(this.#db, msgIds));
  }

  deferBackfill(todos: readonly BackfillTodo[]): Promise<void> {
    return pgCall("deferBackfill", () => deferBackfill(this.#db, todos));
  }
}

