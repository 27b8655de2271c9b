import type { ErrorClass } from "../errors/error-class.js";
import type { FlightState } from "../model/flight-state.js";
import type { ProcRecord, ProcStatus } from "../model/proc-record.js";
import type { Meta } from "../model/meta.js";
import type { AuditEntry, IdentityOwner, RunDecision } from "./run-decision.js";
import type { SnapshotLogEntry } from "./snapshot-log-entry.js";
import type { RefEntry } from "../requests/reference-entry.js";
import type { RequestRecord } from "../requests/request-record.js";

/** A `SCHD_SNAP_LOG` row: what the pipeline logged of a snapshot message, and when it committed. */
export interface SnapshotLogRow extends SnapshotLogEntry {
  /** Ascending in commit order. */
  readonly snapId: number;
  readonly loggedAt: number;
}

/** A stored `REPLAY_AUDIT` row: the entry and its id, ascending in append order. */
export interface AuditRow extends AuditEntry {
  readonly auditId: number;
}

/** A `PROC_STATE_HST` row: a terminal record moved out of `PROC_STATE`, unchanged. */
export interface ArchivedRecord {
  readonly record: ProcRecord;
  readonly archivedAt: number;
}

/** A mailbox row handed to the store for processing. */
export interface InboxEntry {
  readonly msgId: number;
  readonly receivedAt: number;
  /** The intake span's W3C `traceparent`, stored with the new record (`ProcRecord.traceparent`). */
  readonly traceparent?: string | null;
}

/** What the intake persists with every enqueue, so a restart resumes where it was. */
export interface IntakeState {
  /** Every id at or below it is enqueued, processed, or a gap given up after its grace. */
  readonly horizon: number;
}

/** A pending mailbox backfill (`BACKFILL_TODO`). */
export interface BackfillTodo {
  readonly msgId: number;
  readonly processedAt: number;
  readonly meta: Meta | null;
  readonly attempts: number;
  readonly nextAttemptAt: number;
  readonly lastError: string | null;
}

/** Which records to list (all fields optional; ascending by id). */
export interface RecordFilter {
  readonly statuses?: readonly ProcStatus[];
  readonly errorClasses?: readonly ErrorClass[];
  readonly msgIds?: readonly number[];
  readonly afterMsgId?: number;
  readonly limit?: number;
}

/**
 * The records of one error class and reason (`PipelineStore.groups`): how many there are, and the
 * smallest of their ids, ascending.
 */
export interface RecordGroup {
  readonly errorClass: ErrorClass | null;
  readonly reason: string | null;
  readonly count: number;
  /** At most the `idsPerGroup` asked, the smallest first. */
  readonly msgIds: readonly number[];
}

/** What `PipelineStore.loadRunState` read. */
export interface LoadedRunState {
  /** The state generation at the start of the read. */
  readonly generation: number;
  readonly owners: ReadonlyMap<string, IdentityOwner>;
  readonly flights: ReadonlyMap<string, FlightState>;
}

export interface CommitRunOptions {
  /** The generation the leader's memory was loaded at. */
  readonly generation: number;
  /** The leadership epoch, when leadership is in use. */
  readonly fence?: number;
  /**
   * The run's flights as the store holds them at `generation` (what the decision was made from).
   * A store may leave a collection whose rows equal these as it is; a flight not given is
   * written whole. Wrong values here are the caller's fault: they are trusted, not checked.
   */
  readonly stored?: ReadonlyMap<string, FlightState>;
}

/**
 * One transaction of the pipeline. Everything written through it commits together or not at all.
 */
export interface PipelineTx {
  /** The records among `msgIds`, as committed, locked for this transaction. */
  loadRecords(msgIds: readonly number[]): Promise<readonly ProcRecord[]>;
  /**
   * The owner of each key that is bound: its message, the content hash stored with the binding
   * (`null` for a binding stored without one, e.g. before hashes were kept) and `boundAt`, when the
   * binding was made or last moved (the store's clock at that commit), which the dedupe window is
   * measured from. Keys with no owner are absent from the map. Bindings are never removed,
   * archiving included (SPEC §2.2); a binding moves only through `applyRun` (`replaces`).
   */
  identityOwners(keys: readonly string[]): Promise<ReadonlyMap<string, IdentityOwner>>;
  /**
   * The stored flights among `flids` (deleted ones included), locked for this transaction. A FLID
   * that is not stored but retired to history (`MaintenanceTx.retireFlights`) is given as
   * `retiredFlightState(flid, <its highest version>, <that life's lastMsgId>)`, so a new life
   * counts on above its tombstone; a FLID never seen is absent.
   */
  loadFlights(flids: readonly string[]): Promise<ReadonlyMap<string, FlightState>>;
  /**
   * The upstream requests a reply may answer (`REQ_TRACK` in SENT or WAITING), ascending by id,
   * locked for this transaction: no other writer closes or changes them until it ends (SPEC §2.6).
   */
  openRequests(): Promise<readonly RequestRecord[]>;
  /**
   * Every stored reference row (`REF_MASTER`) of the given types, deleted ones (tombstones)
   * included, fields exactly as written. Only the pipeline writes these rows, inside this
   * transaction's one-writer order, so they cannot change before it ends.
   */
  loadReferences(rtypes: readonly string[]): Promise<readonly RefEntry[]>;
  /**
   * Writes a decision: records (by msgId), identity bindings with their content hash and the
   * store's clock as `boundAt` (a key bound twice is a constraint violation: the transaction fails;
   * a binding with `replaces` moves the key to its message only if `replaces` still holds it,
   * otherwise the transaction fails; a key already bound to the same message is left as it is), flights (full replacement of each FLID's row and
   * collections), outbox events (EVENT_IDs ascending in the given order), backfill todos for
   * `decision.backfill`, closed requests (each only over the version it was loaded with; a
   * request that changed meanwhile fails the transaction) and reference rows (upserted by
   * `(rtype, rkey)` with their fields, deleted flag, version and message).
   */
  applyRun(decision: RunDecision): Promise<void>;
  /** Appends an operator audit row. */
  appendAudit(entry: AuditEntry): Promise<void>;
}

/**
 * Our own processing state (`PROC_STATE` and friends, in PostgreSQL).
 *
 * Every implementation guarantees:
 * - `enqueue` is idempotent on msgId and never changes an existing record; it stores the intake
 *   state with the same atomicity; it returns the ids it really inserted.
 * - `head` is the smallest msgId whose status is PENDING or FAILED, found by an index probe.
 * - `unfinished` returns PENDING/FAILED records with `msgId >= fromMsgId`, ascending, at most limit.
 * - `transaction` runs `fn` with serializable effect for the pipeline (one writer at a time); if
 *   `fence` is given and is not the current leadership epoch, it throws `MsgxError("FENCED")` and
 *   writes nothing. A lost connection during commit throws `COMMIT_UNKNOWN`; the caller re-reads.
 * - Driver errors leave as `MsgxError` (connection loss/timeouts: `DEPENDENCY_UNAVAILABLE`).
 * - A `transaction` that writes a run (`PipelineTx.applyRun`) moves the state generation on, in
 *   its own commit, as `MaintenanceTx.retireFlights` does; `enqueue`, `commitRun` and a transaction
 *   that only reads or appends audits do not. `loadRunState` reads the generation before the state.
 */
export interface PipelineStore {
  enqueue(entries: readonly InboxEntry[], intake: IntakeState): Promise<readonly number[]>;
  intakeState(): Promise<IntakeState | undefined>;
  head(): Promise<ProcRecord | undefined>;
  unfinished(fromMsgId: number, limit: number): Promise<readonly ProcRecord[]>;
  get(msgId: number): Promise<ProcRecord | undefined>;
  list(filter: RecordFilter): Promise<readonly ProcRecord[]>;
  /**
   * The records of `statuses` grouped by error class and reason (exact text): one group per pair,
   * ordered by class (no class last), then the most records first, then reason. Each group's
   * `count` is all its records; its `msgIds` the smallest `idsPerGroup` of them.
   */
  groups(statuses: readonly ProcStatus[], idsPerGroup: number): Promise<readonly RecordGroup[]>;
  transaction<T>(fn: (tx: PipelineTx) => Promise<T>, options?: { readonly fence?: number }): Promise<T>;
  /**
   * The state generation and, read in that order in one consistent read (no lock taken), the
   * owners of `keys` and the flights among `flids` as `PipelineTx.identityOwners` and
   * `PipelineTx.loadFlights` give them. A writer that commits between the two reads leaves a
   * newer state under an older generation, which the next `commitRun` refuses: never the reverse.
   */
  loadRunState(keys: readonly string[], flids: readonly string[]): Promise<LoadedRunState>;
  /**
   * Commits a run decided from the leader's memory, in one round trip where the store allows:
   * the pipeline lock, the fence (a stale `fence` throws `MsgxError("FENCED")`), the generation
   * check, every write `PipelineTx.applyRun` and `appendAudit` make for `decision` (its `audits`
   * included), and the commit. Throws `StaleRunError` and writes nothing when the state generation
   * is not `generation`, when a binding without `replaces` finds its key bound to another message,
   * or (`notAtHead`) when `decision.records` are not exactly the unfinished records up to the
   * highest of their ids — the run is not the store's head run (the pump took it from memory, and
   * memory missed an enqueue, or another writer finished or reopened a record meanwhile).
   * Never moves the generation on. A lost connection while it runs throws `COMMIT_UNKNOWN`.
   * A decision with `requests` is refused with `MsgxError("INFRA")`: runs that answer requests
   * commit through `transaction`.
   *
   * Resolves with the `eventId`s the store gave `decision.events`, one per event in their order
   * (ascending: they are drawn in that order), or with fewer when it cannot tell (a schema older
   * than the ids' migration), which callers take as "not known".
   */
  commitRun(decision: RunDecision, options: CommitRunOptions): Promise<readonly number[]>;
  /**
   * The newest operator audit rows, newest first (by `auditId`), at most `limit`; given
   * `beforeAuditId`, only older rows than it (the next page after a row of that id).
   */
  audits(limit: number, beforeAuditId?: number): Promise<readonly AuditRow[]>;
  /** Backfill todos due at `now`, oldest first. */
  dueBackfill(now: number, limit: number): Promise<readonly BackfillTodo[]>;
  /** Removes the todos of rows the mailbox confirmed. */
  completeBackfill(msgIds: readonly number[]): Promise<void>;
  /** Records a failed backfill try (attempts, next time, error). */
  deferBackfill(todos: readonly BackfillTodo[]): Promise<void>;
}
