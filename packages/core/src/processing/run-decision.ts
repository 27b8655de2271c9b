import type { FlightState } from "../flight/flight-state.js";
import type { ProcRecord } from "../model/proc-record.js";
import type { OutboxEventDraft } from "../outbox/outbox-event.js";
import type { BackfillEntry } from "../ports/mailbox.js";

/** An identity bound to the message that first carried it. */
export interface IdentityBinding {
  readonly identityKey: string;
  readonly msgId: number;
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
}

export const emptyRunDecision: RunDecision = { records: [], bindings: [], flights: [], events: [], backfill: [] };
