import { EventType, type OutboxEventDraft } from "../outbox/outbox-event.js";
import { flightToPayload } from "./flight-payload.js";
import type { FlightProcessingOptions } from "./flight-processing-options.js";
import type { FlightState } from "../model/flight-state.js";

/**
 * The two outbox events of one flight change, change stream first:
 * - `msgTopicTarget`: UPSERT with the full new state; for a deleted flight TOMBSTONE, still with
 *   the full final state (`deleted: true`) as payload, since the change stream is not compacted
 *   and its consumers want to know what was deleted.
 * - `schdTarget`: UPSERT with the full new state; for a deleted flight TOMBSTONE with payload
 *   `null`, which the compacted topic turns into a delete of the key.
 * Both are keyed by FLID and carry the new `stateVersion` (the schd flush keeps the newest).
 */
export function flightEvents(
  state: FlightState,
  sourceMsgId: number,
  options: Pick<FlightProcessingOptions, "msgTopicTarget" | "schdTarget">,
): OutboxEventDraft[] {
  const payload = flightToPayload(state);
  const eventType = state.deleted ? EventType.TOMBSTONE : EventType.UPSERT;
  const common = { partitionKey: state.flid, eventType, stateVersion: state.stateVersion, sourceMsgId };
  return [
    { target: options.msgTopicTarget, ...common, payload },
    { target: options.schdTarget, ...common, payload: state.deleted ? null : payload },
  ];
}
