import type { FlightPayload } from "../flight/flight-payload.js";
import type { FlightState } from "../model/flight-state.js";
import type { ProcStatus } from "../model/proc-record.js";
import type { OutboxEventDraft } from "../outbox/outbox-event.js";
import type { ArchivedRecord, SnapshotLogRow } from "../processing/pipeline-store.js";

/** A flight the history sweep moved out of the live tables (`FLIGHT_SCHD_HST`). */
export interface RetiredFlight {
  readonly flid: string;
  /** `yyyyMMdd`; every retired flight has one (an undated flight is never retired). */
  readonly operationDay: string;
  /** The flight exactly as it was last stored (deleted or not), as the event value (schema v1). */
  readonly finalState: FlightPayload;
  /** The `stateVersion` of the tombstone the sweep wrote; null when FDEL had deleted it already. */
  readonly tombstoneVersion: number | null;
  readonly retiredAt: number;
}

/** What the reconciler needs to know about one message id, live or archived. */
export interface ReconcileEntry {
  readonly msgId: number;
  readonly status: ProcStatus;
  /** The record lives in `PROC_STATE_HST` (always terminal). */
  readonly archived: boolean;
  /** A `BACKFILL_TODO` row exists for it (its mailbox write-back is still to do). */
  readonly backfillPending: boolean;
}

/** Which terminal records to archive. */
export interface ArchiveQuery {
  /** Only records whose last change (`updatedAt`) is before this instant. */
  readonly updatedBefore: number;
  /** Only records with `msgId <= throughMsgId` (keeps the newest ids live; see `ProcStateArchiver`). */
  readonly throughMsgId: number;
  readonly limit: number;
  /** Written as `archivedAt`. */
  readonly now: number;
}

/** Options of every write: `fence` as in `PipelineStore.transaction`. */
export interface MaintenanceWriteOptions {
  readonly fence?: number;
}

/**
 * One maintenance transaction on the pipeline's state. It holds the pipeline's write lock from
 * start to commit (so it never interleaves with a pipeline run) and commits all or nothing.
 */
export interface MaintenanceTx {
  /**
   * Up to `limit` stored flights (deleted ones included) whose operation day is before `cutoffDay`
   * (`yyyyMMdd`), whole (scalars and collections), ascending by operation day then FLID as a
   * number, locked for this transaction. Flights without an operation day are never returned.
   */
  retirableFlights(cutoffDay: string, limit: number): Promise<readonly FlightState[]>;
  /**
   * Copies each flight to history and removes it (row and collections) from the live tables, then
   * appends `events` to the outbox (EVENT_IDs ascending in the given order) — in this transaction.
   * Each flight must still be stored with the `stateVersion` of `finalState`; otherwise it throws
   * `MsgxError("INFRA")` and the transaction writes nothing.
   */
  retireFlights(flights: readonly RetiredFlight[], events: readonly OutboxEventDraft[]): Promise<void>;
}

/**
 * The state the maintenance jobs work on (SPEC §2.7, seed 000 §6.2): flight history, the
 * `SCHD_SNAP_LOG` purge, the `PROC_STATE` archive and the reconciler's view. It works on the same
 * database as the `PipelineStore` it is paired with.
 *
 * Every implementation guarantees:
 * - `transaction`, `archiveTerminal` and `registerMissingBackfill` take the pipeline's write lock
 *   (one writer at a time, like `PipelineStore.transaction`) and check `fence` under it: a stale
 *   fence throws `MsgxError("FENCED")` and writes nothing. Each call is one transaction.
 * - History and its tombstones are never split: a flight leaves the live tables in the same commit
 *   that writes its history row and its outbox events, or not at all.
 * - `archiveTerminal` moves only SUCCEEDED / SKIPPED / DEAD records without a backfill todo,
 *   unchanged, and never a PENDING or FAILED one. Identity bindings (`MSG_IDENTITY`) are never
 *   touched, so dedupe survives archiving; the paired `PipelineStore.enqueue` ignores archived ids.
 * - Every method is bounded by its `limit` or id range, whatever the size of the tables.
 * - Driver errors leave as `MsgxError` (connection loss/timeouts: `DEPENDENCY_UNAVAILABLE`).
 */
export interface MaintenanceStore {
  /** Runs `fn` in one transaction under the pipeline's write lock (see above). */
  transaction<T>(fn: (tx: MaintenanceTx) => Promise<T>, options?: MaintenanceWriteOptions): Promise<T>;
  /** The history rows of a FLID, oldest retirement first (a FLID may live and retire more than once). */
  retiredFlights(flid: string): Promise<readonly RetiredFlight[]>;
  /**
   * The newest `limit` `SCHD_SNAP_LOG` rows, newest first (the pipeline writes one per snapshot
   * message a run decides, in the run's transaction: `RunDecision.snapshots`). RangeError for a
   * `limit` that is not a positive integer.
   */
  snapshotLog(limit: number): Promise<readonly SnapshotLogRow[]>;
  /**
   * Deletes up to `limit` `SCHD_SNAP_LOG` rows logged before `before`, oldest first; returns how
   * many. Touches nothing else, so it takes no pipeline lock.
   */
  purgeSnapLog(before: number, limit: number): Promise<number>;
  /**
   * Moves up to `limit` terminal records matching `query` to `PROC_STATE_HST` (oldest `updatedAt`
   * first) and returns their ids, ascending.
   */
  archiveTerminal(query: ArchiveQuery, options?: MaintenanceWriteOptions): Promise<readonly number[]>;
  /** The archived records among `msgIds`, ascending by id. */
  archivedRecords(msgIds: readonly number[]): Promise<readonly ArchivedRecord[]>;
  /**
   * Every record (live or archived) with `afterMsgId < msgId <= throughMsgId`, ascending. The
   * caller bounds the range; one consistent read.
   */
  reconcileRange(afterMsgId: number, throughMsgId: number): Promise<readonly ReconcileEntry[]>;
  /**
   * Registers a backfill todo, due at `now`, for each of `msgIds` that is terminal (live or
   * archived) and has none; `processedAt` and `meta` come from the record. Idempotent; returns the
   * ids really registered, ascending.
   */
  registerMissingBackfill(msgIds: readonly number[], now: number, options?: MaintenanceWriteOptions): Promise<readonly number[]>;
}
