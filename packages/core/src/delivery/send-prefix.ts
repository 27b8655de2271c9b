import { isMsgxError, isOutage } from "../errors/msgx-error.js";
import type { DeliveryPlacement, DeliveryPort, DeliveryRecord } from "../ports/delivery-port.js";

/**
 * The largest acknowledged prefix of a send (with the port's placement of each of its `sent`
 * records, in order), or the fault that even the first record hit.
 */
export type PrefixOutcome =
  | { readonly ok: true; readonly sent: number; readonly placements: readonly (DeliveryPlacement | null)[] }
  | { readonly ok: false; readonly fault: unknown };

/**
 * True when a failed send says nothing about its records: the broker is unavailable, or this
 * process no longer leads and its producer is fenced (`ProducerFencing`: `FENCED`). Such a send
 * spends no attempt of any event: a stale leader must not mark what it could not send.
 */
const notTheRecords = (e: unknown): boolean => isOutage(e) || (isMsgxError(e) && e.kind === "FENCED");

/**
 * Sends `records` in one call; when the call fails for a reason that is not an outage, retries
 * ever smaller prefixes (half each time, down to one record), like the pump's group commit, so a
 * bad record is pinned without giving up the good ones ahead of it. Records of a failed call may
 * have been appended: resending them is the at-least-once duplicate consumers dedupe on the
 * event id. An outage, a fenced producer (or an abort) is rethrown at once: the caller pauses and
 * spends no attempt.
 */
export async function sendLargestPrefix(
  port: DeliveryPort,
  records: readonly DeliveryRecord[],
  signal?: AbortSignal,
): Promise<PrefixOutcome> {
  let fault: unknown = new Error("nothing to send");
  for (let size = records.length; size >= 1; size = Math.floor(size / 2)) {
    try {
      const placements = await port.send(records.slice(0, size), signal);
      return { ok: true, sent: size, placements };
    } catch (e) {
      if (notTheRecords(e) || signal?.aborted) throw e;
      fault = e;
    }
  }
  return { ok: false, fault };
}

/**
 * True when an error from the outbox store (or an outage or a fenced producer from the broker)
 * should pause the driver behind its breaker: an outage, `FENCED` (a runner that no longer leads
 * waits for its lease keeper to stop it), or any other error the port marks retriable (a dropped
 * connection, a serialization failure). Faults of a record never reach this test: the drivers
 * handle them per event.
 */
export const pausesDelivery = (e: unknown): boolean => notTheRecords(e) || (isMsgxError(e) && e.retriable);
