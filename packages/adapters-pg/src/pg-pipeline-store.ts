import { systemClock, type AuditRow, type BackfillTodo, type Clock, type InboxEntry, type IntakeState, type PipelineStore, type PipelineTx, type ProcRecord, type ProcStatus, type RecordFilter, type RecordGroup } from "@msgx/core";
import type { Kysely } from "kysely";
import { DEFAULT_LOCK_NAMESPACE, lockKeys, type LockKeys } from "./lock-keys.js";
import { pgCall } from "./pg-error-map.js";
import { PgPipelineTx } from "./pg-pipeline-tx.js";
import { conflictAttemptsOf, pipelineTransaction } from "./pg-transaction.js";
import { audits } from "./queries/audit.js";
import { completeBackfill, deferBackfill, dueBackfill } from "./queries/backfill-todo.js";
import type { Db } from "./queries/db.js";
import { intakeState } from "./queries/pipeline-epoch.js";
import { enqueue, getRecord, groupRecords, head, listRecords, unfinished } from "./queries/proc-state.js";
import type { MsgxDatabase } from "./rows/tables.js";

/** The sweep leaves a fresh todo alone this long: the pump backfills right after its commit. */
export const PG_BACKFILL_FIRST_DELAY_MS = 30_000;

export interface PgPipelineStoreOptions {
  /** Time for `updated_at`, `created_at` and backfill schedules. Default: the system clock. */
  readonly clock?: Clock;
  /**
   * Names the advisory locks (see `lockKeys`); the leadership of the same deployment must use the
   * same namespace. Default `msgx`; use the schema name when several deployments share a database.
   */
  readonly lockNamespace?: string;
  /** Default {@link PG_BACKFILL_FIRST_DELAY_MS}. */
  readonly backfillFirstDelayMs?: number;
  /** Serialization failures and deadlocks (CONFLICT) are retried this many times in all. Default 3. */
  readonly conflictAttempts?: number;
}

/**
 * `PipelineStore` on PostgreSQL through kysely: the pg dialect or the in-repo PGlite dialect.
 * Tables are unqualified: put the schema on the connections' search path (`pgPoolConfig` does).
 *
 * A pipeline transaction takes `pg_advisory_xact_lock` (one writer at a time, the in-memory
 * store's serial tail) and reads the leadership epoch under it; a stale `fence` is refused before
 * anything is written. A leader change bumps the epoch under the same lock, so a commit of the old
 * leader is either entirely before the new leader's first read or refused.
 */
export class PgPipelineStore implements PipelineStore {
  readonly #db: Db;
  readonly #clock: Clock;
  readonly #keys: LockKeys;
  readonly #backfillFirstDelayMs: number;
  readonly #conflictAttempts: number;

  constructor(db: Kysely<MsgxDatabase>, options: PgPipelineStoreOptions = {}) {
    this.#db = db;
    this.#clock = options.clock ?? systemClock;
    this.#keys = lockKeys(options.lockNamespace ?? DEFAULT_LOCK_NAMESPACE);
    this.#backfillFirstDelayMs = options.backfillFirstDelayMs ?? PG_BACKFILL_FIRST_DELAY_MS;
    this.#conflictAttempts = conflictAttemptsOf(options.conflictAttempts);
  }

  /** The advisory lock keys this store uses. */
  get lockKeys(): LockKeys {
    return this.#keys;
  }

  enqueue(entries: readonly InboxEntry[], intake: IntakeState): Promise<readonly number[]> {
    return pgCall("enqueue", () => enqueue(this.#db, entries, intake, this.#clock.now()));
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

  transaction<T>(fn: (tx: PipelineTx) => Promise<T>, options: { readonly fence?: number } = {}): Promise<T> {
    const lock = { keys: this.#keys, what: "pipeline", fence: options.fence, conflictAttempts: this.#conflictAttempts };
    return pipelineTransaction(this.#db, lock, (trx) => fn(new PgPipelineTx(trx, this.#clock.now(), this.#backfillFirstDelayMs)));
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

