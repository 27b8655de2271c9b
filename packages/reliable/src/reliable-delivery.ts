import { ReliableMessageError } from "./reliable-message-error.js";

/** The longest delay of a delayed message: 30 days ahead (a longer one is a mistake, not a policy). */
export const MAX_DELIVERY_DELAY_MS = 30 * 24 * 3_600_000;

/**
 * When a confirmed message is first sent (RocketMQ 5's timer messages): at `deliverAt` (epoch
 * ms), or `delayMs` after the call that gives it; at most one of them. A time already past (or a
 * delay of 0) sends at once. Given at the prepare, it is stored and the confirm delivers then; given
 * at the confirm, it wins over the prepare's. The resend schedule counts from that first send, not
 * from the confirm.
 */
export interface ReliableDelivery {
  readonly deliverAt?: number | null;
  readonly delayMs?: number | null;
}

/**
 * The delivery time of `when` at `now` (null: at once). A bad value is `INVALID_MESSAGE`: not an
 * integer, negative, both given, or more than {@link MAX_DELIVERY_DELAY_MS} ahead.
 */
export function deliveryTime(when: ReliableDelivery | undefined, now: number): number | null {
  const deliverAt = when?.deliverAt ?? null;
  const delayMs = when?.delayMs ?? null;
  if (deliverAt !== null && delayMs !== null) throw invalid("give deliverAt or delayMs, not both");
  if (delayMs !== null) {
    if (!Number.isSafeInteger(delayMs) || delayMs < 0 || delayMs > MAX_DELIVERY_DELAY_MS) throw invalid(`delayMs must be an integer from 0 to ${MAX_DELIVERY_DELAY_MS}: ${String(delayMs)}`);
    return delayMs === 0 ? null : now + delayMs;
  }
  if (deliverAt === null) return null;
  if (!Number.isSafeInteger(deliverAt) || deliverAt < 0) throw invalid(`deliverAt must be epoch milliseconds: ${String(deliverAt)}`);
  if (deliverAt > now + MAX_DELIVERY_DELAY_MS) throw invalid(`deliverAt is more than ${MAX_DELIVERY_DELAY_MS} ms ahead: ${deliverAt}`);
  return deliverAt > now ? deliverAt : null;
}

/**
 * The delivery time a confirm asks for: undefined when `when` names none (the time asked for at
 * the prepare then holds), else {@link deliveryTime} (null: at once, overriding the prepare's).
 */
export function confirmDeliveryTime(when: ReliableDelivery | undefined, now: number): number | null | undefined {
  return (when?.deliverAt ?? null) === null && (when?.delayMs ?? null) === null ? undefined : deliveryTime(when, now);
}

const invalid = (message: string) => new ReliableMessageError("INVALID_MESSAGE", `invalid delivery time: ${message}`);
