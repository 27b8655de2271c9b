import type { ArchivedRecord, ArchiveQuery, MaintenanceStore, MaintenanceTx, MaintenanceWriteOptions, ReconcileEntry, RetiredFlight, SnapshotLogRow } from "@msgx/core";
import type { Kysely } from "kysely";
import type { LockKeys } from "../lock-keys.js";
import { pgCall } from "../pg-error-map.js";
import { pipelineTransaction } from "../pg-transaction.js";
import { PipelineStoreSettings, type PipelineStoreOptions } from "../pg-store-settings.js";
import { registerMissingBackfill } from "../queries/backfill-todo.js";
import type { Db } from "../queries/db.js";
import { retiredFlights } from "../queries/flights.js";
import { archivedRecords, archiveTerminal, reconcileRange } from "../queries/proc-state.js";
import { purgeSnapLog, snapshotLog } from "../queries/snap-log.js";
import type { MsgxDatabase } from "../rows/tables.js";
import { PgMaintenanceTx } from "./pg-maintenance-tx.js";

export interface PgMaintenanceStoreOptions extends PipelineStoreOptions {
  /**
   * The advisory lock keys of the paired `PgPipelineStore` (its `lockKeys`), or `lockNamespace`
   * they derive from. They must be the pipeline's, or the jobs would not exclude its runs. Default:
   * the default namespace, as `PgPipelineStore` has.
   */
  readonly lockKeys?: LockKeys;
}

/**
 * `MaintenanceStore` on PostgreSQL (pg or PGlite) through kysely, beside a `PgPipelineStore` on the
 * same database and schema (tables unqualified: the schema is on the search path). One SQL
 * statement per operation (`queries/`, one file per table); the writes run under the pipeline lock and fence.
 * Needs migration `0007_maintenance`.
 */
export class PgMaintenanceStore implements MaintenanceStore {
  readonly #db: Db;
  readonly #settings: PipelineStoreSettings;

  constructor(db: Kysely<MsgxDatabase>, options: PgMaintenanceStoreOptions = {}) {
    this.#db = db;
    this.#settings = new PipelineStoreSettings(options, options.lockKeys);
  }

  /** The advisory lock keys its writes take: those of the paired pipeline store. */
  get lockKeys(): LockKeys {
    return this.#settings.keys;
  }

  transaction<T>(fn: (tx: MaintenanceTx) => Promise<T>, options: MaintenanceWriteOptions = {}): Promise<T> {
    return pipelineTransaction(this.#db, this.#lock("maintenance", options), (trx) => fn(new PgMaintenanceTx(trx, this.#settings.clock.now())));
  }

  retiredFlights(flid: string): Promise<readonly RetiredFlight[]> {
    return pgCall("retiredFlights", () => retiredFlights(this.#db, flid));
  }

  snapshotLog(limit: number): Promise<readonly SnapshotLogRow[]> {
    if (!Number.isInteger(limit) || limit < 1) return Promise.reject(new RangeError(`limit must be a positive integer, got ${limit}`));
    return pgCall("snapshotLog", () => snapshotLog(this.#db, limit));
  }

  purgeSnapLog(before: number, limit: number): Promise<number> {
    return pgCall("purgeSnapLog", () => purgeSnapLog(this.#db, before, limit));
  }

  archiveTerminal(query: ArchiveQuery, options: MaintenanceWriteOptions = {}): Promise<readonly number[]> {
    return pipelineTransaction(this.#db, this.#lock("archiveTerminal", options), (trx) => pgCall("archiveTerminal", () => archiveTerminal(trx, query)));
  }

  archivedRecords(msgIds: readonly number[]): Promise<readonly ArchivedRecord[]> {
    return pgCall("archivedRecords", () => archivedRecords(this.#db, msgIds));
  }

  reconcileRange(afterMsgId: number, throughMsgId: number): Promise<readonly ReconcileEntry[]> {
    return pgCall("reconcileRange", () => reconcileRange(this.#db, afterMsgId, throughMsgId));
  }

  registerMissingBackfill(msgIds: readonly number[], now: number, options: MaintenanceWriteOptions = {}): Promise<readonly number[]> {
    if (msgIds.length === 0) return Promise.resolve([]);
    return pipelineTransaction(this.#db, this.#lock("registerMissingBackfill", options), (trx) =>
      pgCall("registerMissingBackfill", () => registerMissingBackfill(trx, msgIds, now)),
    );
  }

  /** Every write enters the pipeline exactly as a pipeline transaction does: same keys, fence and retries. */
  #lock(what: string, options: MaintenanceWriteOptions) {
    return this.#settings.lock(what, options.fence);
  }
}
