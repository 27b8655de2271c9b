import { isMsgxError, MsgxError } from "@msgx/core";
import { type TaskConsumeLogEntry, type TaskConsumeLogFilter, type TaskConsumeLogStore, type TaskConsumeLogWrite, type TaskConsumeTx } from "@msgx/tasks";
import type { Kysely, Transaction } from "kysely";
import { fnv1a } from "../lock-keys.js";
import { classifyPgError, mapPgError, pgCall } from "../pg-error-map.js";
import { pgTransaction } from "../pg-transaction.js";
import { claimConsume, deferCallback, dueCallbacks, getConsume, listConsume, settleCallback, writeConsume } from "./task-queries.js";
import { purgeTaskConsumeLog, reopenCallback, reopenDeadConsume } from "./task-consume-log-queries.js";
import type { TaskConsumeLogDatabase } from "./task-tables.js";

export interface PgTaskConsumeLogStoreOptions {
  /**
   * The class id (int4) of the advisory locks `claim` takes, as `(class, hashtext(event_id))`.
   * Default: a constant of its own (`msgx:task-consume`), apart from the pipeline's locks.
   */
  readonly lockClass?: number;
}

/** FNV-1a of `msgx:task-consume` as a signed int4. */
export const TASK_CONSUME_LOCK_CLASS = fnv1a("msgx:task-consume");

/**
 * `TaskConsumeLogStore` in the owner service's own PostgreSQL database (`task_event_consume_log`,
 * migration `taskConsumeLogMigration`, then `taskConsumeLogPurgeMigration` for the purge's index).
 * The handler's transaction handle is a kysely `Transaction` over the owner's schema: the handler
 * writes its business rows through it, and they commit with the SUCCEEDED row or not at all.
 *
 * Errors of BEGIN, of the log's own statements and of COMMIT leave as `MsgxError` (a connection
 * lost during COMMIT as `COMMIT_UNKNOWN`). What the handler throws is rethrown unchanged after the
 * rollback, except driver errors that mean an outage or a conflict, which are mapped: a lost
 * connection inside the handler's own SQL pauses the consumer instead of spending an attempt; a
 * deadlock or serialization failure is retried as a failed attempt, with backoff.
 */
export class PgTaskConsumeLogStore<DB = TaskConsumeLogDatabase> implements TaskConsumeLogStore<Transaction<DB>> {
  readonly #db: Kysely<DB>;
  readonly #lockClass: number;

  constructor(db: Kysely<DB>, options: PgTaskConsumeLogStoreOptions = {}) {
    this.#db = db;
    this.#lockClass = options.lockClass ?? TASK_CONSUME_LOCK_CLASS;
  }

  transaction<T>(fn: (tx: TaskConsumeTx<Transaction<DB>>) => Promise<T>): Promise<T> {
    return pgTransaction(this.#db, "consume log", async (trx) => {
      const tx: TaskConsumeTx<Transaction<DB>> = {
        handle: trx,
        claim: (eventId: string) => pgCall("consume log claim", () => claimConsume(trx, this.#lockClass, eventId)),
        succeed: async (write: TaskConsumeLogWrite) => {
          if (write.status !== "SUCCEEDED") throw new TypeError(`succeed writes SUCCEEDED rows, not ${write.status}`);
          const { written, row } = await pgCall("consume log succeed", () => writeConsume(trx, write));
          if (!written) throw new MsgxError("INFRA", `consume log ${write.eventId} is already ${row.status}`);
        },
      };
      try {
        return await fn(tx);
      } catch (e) {
        throw outageOrAsIs(e);
      }
    });
  }

  get(eventId: string): Promise<TaskConsumeLogEntry | undefined> {
    return pgCall("consume log get", () => getConsume(this.#db, eventId));
  }

  async recordFailure(write: TaskConsumeLogWrite): Promise<TaskConsumeLogEntry> {
    if (write.status === "SUCCEEDED") throw new TypeError("recordFailure writes FAILED or DEAD rows");
    return (await pgCall("consume log record failure", () => writeConsume(this.#db, write))).row;
  }

  dueCallbacks(now: number, limit: number): Promise<readonly TaskConsumeLogEntry[]> {
    return pgCall("consume log due callbacks", () => dueCallbacks(this.#db, now, limit));
  }

  settleCallback(eventId: string, status: "SENT" | "REJECTED", error: string | null, at: number): Promise<void> {
    return pgCall("consume log settle callback", () => settleCallback(this.#db, eventId, status, error, at));
  }

  deferCallback(eventId: string, attempts: number, nextAt: number, error: string): Promise<void> {
    return pgCall("consume log defer callback", () => deferCallback(this.#db, eventId, attempts, nextAt, error));
  }

  list(filter: TaskConsumeLogFilter): Promise<readonly TaskConsumeLogEntry[]> {
    return pgCall("consume log list", () => listConsume(this.#db, filter));
  }

  reopenDead(eventId: string, note: string, deliveryEventId: string | null, at: number): Promise<TaskConsumeLogEntry | undefined> {
    return pgCall("consume log reopen dead", () => reopenDeadConsume(this.#db, eventId, note, deliveryEventId, at));
  }

  reopenCallback(eventId: string, at: number): Promise<boolean> {
    return pgCall("consume log reopen callback", () => reopenCallback(this.#db, eventId, at));
  }

  /**
   * One autocommit DELETE of at most `limit` rows, outside any handler transaction; index-served
   * once `taskConsumeLogPurgeMigration` (0017) is applied.
   */
  purge(before: number, limit: number): Promise<number> {
    return pgCall("consume log purge", () => purgeTaskConsumeLog(this.#db, before, limit));
  }
}

/** A driver error that means "not now" (outage, conflict) is mapped; anything else passes as is. */
function outageOrAsIs(e: unknown): unknown {
  if (isMsgxError(e) || !(e instanceof Error)) return e;
  const rule = classifyPgError(e);
  return rule.kind === "DEPENDENCY_UNAVAILABLE" || rule.kind === "CONFLICT" ? mapPgError(e, "task handler") : e;
}

