import type { FlightState } from "../model/flight-state.js";
import type { ProcRecord } from "../model/proc-record.js";
import type { OutboxEventDraft } from "../outbox/outbox-event.js";
import type { BackfillEntry } from "../ports/mailbox.js";
import type { RefChange } from "../requests/reference-entry.js";
import type { RequestRecord } from "../requests/request-record.js";
import type { MessageWarning } from "./processor.js";
import type { SnapshotLogEntry } from "./snapshot-log-entry.js";

/** The operator named on the audit rows the pipeline appends by itself. */
export const PIPELINE_OPERATOR = "msgx";

/** An operator action on messages (`REPLAY_AUDIT`). */
export interface AuditEntry {
  readonly at: number;
  readonly operator: string;
  readonly action: string;
  readonly msgIds: readonly number[];
  readonly detail: string;
}

/** A warning of one message of the run (see `MessageWarning`). */
export interface RunWarning extends MessageWarning {
  readonly msgId: number;
}

/** An identity bound to the message that first carried it, or taken over by a new one after the dedupe window. */
export interface IdentityBinding {
  readonly identityKey: string;
  readonly msgId: number;
  /** SHA-256 (hex) of that message's raw text; absent or null when not known. */
  readonly contentHash?: string | null;
  /**
   * The message that held the identity until now (its owner was older than the dedupe window and
   * this message's body differs): the binding moves to `msgId`, but only if that message still holds
   * it. Absent for a key not bound yet.
   */
  readonly replaces?: number;
}

/** Who holds a bound identity, as the store gives it back (`PipelineTx.identityOwners`). */
export interface IdentityOwner {
  readonly msgId: number;
  /** The hash stored with the binding; null when it was bound without one (the plain duplicate rule applies). */
  readonly contentHash: string | null;
  /**
   * When the binding was made (epoch ms, from the store's clock), which the dedupe window is
   * measured from. Absent when unknown: the binding counts as inside the window.
   */
  readonly boundAt?: number;
}

/** An upstream request a reply of the run answered: its new (DONE) record and the version it had. */
export interface RequestClose {
  readonly request: RequestRecord;
  /** The version loaded with the run; the store writes the close only over it (compare-and-set). */
  readonly expectedVersion: number;
}

/**
 * Everything one run of consecutive messages writes, decided in memory before any write. A store
 * commits it in one transaction or not at all; one message or five hundred go the same way.
 */
export interface RunDecision {
  /** The new state of each decided message, ascending by id. */
  readonly records: readonly ProcRecord[];
  readonly bindings: readonly IdentityBinding[];
  /** The final state of every flight the run changed (one entry per FLID). */
  readonly flights: readonly FlightState[];
  /** Outbox rows in the order they must be delivered. */
  readonly events: readonly OutboxEventDraft[];
  /** Mailbox backfill intents for the messages that reached a terminal state. */
  readonly backfill: readonly BackfillEntry[];
  /** Requests closed (DONE) by the replies of the run (SPEC §2.6); absent when none. */
  readonly requests?: readonly RequestClose[];
  /** `REF_MASTER` rows to upsert, one per `(rtype, rkey)`: the last change of the run; absent when none. */
  readonly references?: readonly RefChange[];
  /** `SCHD_SNAP_LOG` rows for the snapshot messages of the run, in id order; absent when none. */
  readonly snapshots?: readonly SnapshotLogEntry[];
  /**
   * Audit rows the run appends in its transaction (`PipelineTx.appendAudit`): an UNSUPPORTED
   * message that ended SKIPPED or DEAD(EXHAUSTED) (WIRE.md: never silent). Absent when none.
   */
  readonly audits?: readonly AuditEntry[];
  /** Warnings of the run's messages, in id order, for the log and metrics; written nowhere. Absent when none. */
  readonly warnings?: readonly RunWarning[];
}

export const emptyRunDecision: RunDecision = { records: [], bindings: [], flights: [], events: [], backfill: [] };
