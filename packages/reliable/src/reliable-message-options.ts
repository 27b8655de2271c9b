import { exponentialBackoff } from "@msgx/core";
import { MAX_SUBSCRIPTIONS, SUBSCRIPTION_NAME } from "./subscription-delivery.js";
/**
 * Timing of the check-back and recovery jobs and the consumer reject budget. All durations in
 * milliseconds.
 *
 * The seed reads `message.send.1.time` … `message.send.5.time` (minutes) and
 * `message.max.send.times` from configuration without giving values; the defaults here are the
 * doubling steps 1, 2, 4, 8, 16 minutes and six sends (the first send plus five resends). Each
 * wait runs from the broker's acknowledgement of the send, so with a healthy broker the sends go
 * out at about 0, 1, 3, 7, 15 and 31 minutes and the message is dead at 47 minutes without a
 * consumer acknowledgement; a send still waiting in the outbox (broker outage) is never counted.
 */
export interface ReliableMessageOptions {
  /** A WAITING_CONFIRM message this old is checked back with its producer (unless its queue or the message says otherwise). Default 60 s. */
  readonly checkAfterMs: number;
  /** Per-queue default check delay, overriding `checkAfterMs` (a message's own `checkDelayMs` overrides both). */
  readonly queueCheckAfterMs?: Readonly<Record<string, number>>;
  /** The wait after the first inconclusive check-back ("later", checker error, no checker); it doubles after each. Default 60 s. */
  readonly checkIntervalMs: number;
  /** The cap of the doubling check-back wait. Default 1 h. */
  readonly maxCheckIntervalMs: number;
  /** Inconclusive check-backs from which each further one raises an alert (and `afterMaxChecks` applies). Default 10. */
  readonly maxChecks: number;
  /**
   * What happens at the `maxChecks`-th inconclusive check: `keep-asking` (default: ask on at
   * `maxCheckIntervalMs`, alerting each time) or `dead` (the message is held for review, REVIEW:
   * never delivered, no job touches it; an operator or the producer confirms or cancels it).
   */
  readonly afterMaxChecks: AfterMaxChecks;
  /**
   * How long send number n waits for its acknowledgement, from the broker's acknowledgement of the
   * send: `resendWaitsMs[n - 1]`, the last entry for every later send. Default 1, 2, 4, 8, 16 minutes.
   */
  readonly resendWaitsMs: readonly number[];
  /** A message whose send number `maxSends` (broker-acknowledged, rejects' redeliveries not counted) went unacknowledged is marked dead. Default 6. */
  readonly maxSends: number;
  /** The consumer's rejects after which the message is dead (and dead-lettered). Default 5. */
  readonly maxRejects: number;
  /** The wait before redelivering after reject number n: `rejectWaitsMs[n - 1]`, the last entry repeating. Default 1 s, 5 s, 30 s, 2 min. */
  readonly rejectWaitsMs: readonly number[];
  /** How soon the recovery job looks again at a message whose last send is still in the outbox (an outage, never an attempt). Default 5 s. */
  readonly outageRecheckMs: number;
  /**
   * Queues ordered by key (pg-boss `key_strict_fifo`): a message there needs a `key`, and is first
   * sent only once every message of its key confirmed before it is finished (see `key-order.ts`).
   * Default none.
   */
  readonly orderedQueues?: readonly string[];
  /**
   * Named subscriptions (consumer groups) per queue: queue → names (`SUBSCRIPTION_NAME`, at most
   * `MAX_SUBSCRIPTIONS`, no repeats). Each subscription gets every confirmed message of its queue
   * on its own topic and acknowledges, rejects, is resent and dead-lettered on its own; the message
   * is ACKNOWLEDGED when all have acknowledged. A queue not listed has one acknowledgement (no subscriptions).
   */
  readonly subscriptions?: Readonly<Record<string, readonly string[]>>;
}

export type AfterMaxChecks = "keep-asking" | "dead";

/** What `reliableMessageOptions` accepts: any option, and the old name of `maxCheckIntervalMs`. */
export type ReliableMessageOptionsInput = Partial<ReliableMessageOptions> & {
  /** @deprecated the old name of `maxCheckIntervalMs` (used when that one is not given). */
  readonly exhaustedCheckIntervalMs?: number;
};

const SECOND = 1_000;
const MINUTE = 60_000;

export const DEFAULT_RELIABLE_MESSAGE_OPTIONS: ReliableMessageOptions = {
  checkAfterMs: MINUTE,
  checkIntervalMs: MINUTE,
  maxCheckIntervalMs: 60 * MINUTE,
  maxChecks: 10,
  afterMaxChecks: "keep-asking",
  resendWaitsMs: [1 * MINUTE, 2 * MINUTE, 4 * MINUTE, 8 * MINUTE, 16 * MINUTE],
  maxSends: 6,
  maxRejects: 5,
  rejectWaitsMs: [1 * SECOND, 5 * SECOND, 30 * SECOND, 2 * MINUTE],
  outageRecheckMs: 5 * SECOND,
};

/** The defaults overridden by `partial`, checked: a bad value throws a `RangeError`. */
export function reliableMessageOptions(partial: ReliableMessageOptionsInput = {}): ReliableMessageOptions {
  const { exhaustedCheckIntervalMs, ...given } = partial;
  const defined = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined)) as Partial<ReliableMessageOptions>;
  const o = {
    ...DEFAULT_RELIABLE_MESSAGE_OPTIONS,
    ...(exhaustedCheckIntervalMs !== undefined ? { maxCheckIntervalMs: exhaustedCheckIntervalMs } : {}),
    ...defined,
  };
  for (const name of ["checkAfterMs", "checkIntervalMs", "maxCheckIntervalMs", "outageRecheckMs"] as const) {
    if (typeof o[name] !== "number" || !Number.isFinite(o[name]) || o[name] < 0) throw new RangeError(`${name} must be a non-negative number: ${o[name]}`);
  }
  if (o.outageRecheckMs <= 0) throw new RangeError(`outageRecheckMs must be positive: ${o.outageRecheckMs}`);
  for (const name of ["maxChecks", "maxSends", "maxRejects"] as const) {
    if (!Number.isInteger(o[name]) || o[name] < 1) throw new RangeError(`${name} must be a positive integer: ${o[name]}`);
  }
  if (o.afterMaxChecks !== "keep-asking" && o.afterMaxChecks !== "dead") {
    throw new RangeError(`afterMaxChecks must be "keep-asking" or "dead": ${JSON.stringify(o.afterMaxChecks)}`);
  }
  checkWaits("resendWaitsMs", o.resendWaitsMs);
  checkWaits("rejectWaitsMs", o.rejectWaitsMs);
  const queues = o.queueCheckAfterMs ?? {};
  if (typeof queues !== "object" || queues === null) throw new RangeError("queueCheckAfterMs must be an object of queue → milliseconds");
  for (const [queue, ms] of Object.entries(queues)) {
    if (typeof ms !== "number" || !Number.isFinite(ms) || ms < 0) throw new RangeError(`queueCheckAfterMs.${queue} must be a non-negative number: ${ms}`);
  }
  const ordered = o.orderedQueues ?? [];
  if (!Array.isArray(ordered) || ordered.some((q) => typeof q !== "string" || q.length === 0)) throw new RangeError("orderedQueues must be queue names");
  return { ...o, resendWaitsMs: [...o.resendWaitsMs], rejectWaitsMs: [...o.rejectWaitsMs], queueCheckAfterMs: { ...queues }, orderedQueues: [...ordered], subscriptions: checkSubscriptions(o.subscriptions ?? {}) };
}

function checkSubscriptions(subs: Readonly<Record<string, readonly string[]>>): Readonly<Record<string, readonly string[]>> {
  if (typeof subs !== "object" || subs === null || Array.isArray(subs)) throw new RangeError("subscriptions must be an object of queue → subscription names");
  const out: Record<string, readonly string[]> = {};
  for (const [queue, names] of Object.entries(subs)) {
    if (!Array.isArray(names) || names.length === 0 || names.length > MAX_SUBSCRIPTIONS) throw new RangeError(`subscriptions.${queue} must list 1 to ${MAX_SUBSCRIPTIONS} names`);
    const bad = names.find((n) => typeof n !== "string" || !SUBSCRIPTION_NAME.test(n));
    if (bad !== undefined) throw new RangeError(`subscriptions.${queue}: ${JSON.stringify(bad)} is not a subscription name ([A-Za-z0-9_-], 1-50 characters)`);
    if (new Set(names).size !== names.length) throw new RangeError(`subscriptions.${queue} names a subscription twice`);
    out[queue] = [...names];
  }
  return out;
}

/** The subscriptions of `queue` (none: one acknowledgement per message). */
export const subscriptionsOf = (options: ReliableMessageOptions, queue: string): readonly string[] => options.subscriptions?.[queue] ?? [];

function checkWaits(name: string, waits: readonly number[]): void {
  if (!Array.isArray(waits) || waits.length === 0 || waits.some((w) => typeof w !== "number" || !Number.isFinite(w) || w <= 0)) {
    throw new RangeError(`${name} must be positive numbers, at least one: ${Array.isArray(waits) ? waits.join(", ") : String(waits)}`);
  }
}

/** Entry n (1-based) of a schedule, the last one for every later n. */
const nth = (waits: readonly number[], n: number): number => waits[Math.min(Math.max(n, 1), waits.length) - 1] ?? waits[waits.length - 1]!;

/** How long send number `sendCount` (1-based, counting only sends that spend `maxSends`) waits for its acknowledgement. */
export const ackWaitAfter = (options: ReliableMessageOptions, sendCount: number): number => nth(options.resendWaitsMs, sendCount);

/** The wait before redelivering after reject number `rejectCount` (1-based). */
export const rejectWaitAfter = (options: ReliableMessageOptions, rejectCount: number): number => nth(options.rejectWaitsMs, rejectCount);

/**
 * The wait before the next check-back after `checkCount` inconclusive ones: `checkIntervalMs`
 * after the first, doubling after each, capped at `maxCheckIntervalMs`.
 */
export function checkWaitAfter(options: ReliableMessageOptions, checkCount: number): number {
  return exponentialBackoff({ initialMs: options.checkIntervalMs, maxMs: options.maxCheckIntervalMs }, checkCount);
}

/** The first check delay of a message: its own, else its queue's default, else `checkAfterMs`. */
export function checkDelayOf(options: ReliableMessageOptions, queue: string, checkDelayMs: number | null): number {
  if (checkDelayMs !== null) return checkDelayMs;
  const queues = options.queueCheckAfterMs;
  // Own keys only: a queue may be named "constructor".
  return queues !== undefined && Object.prototype.hasOwnProperty.call(queues, queue) ? queues[queue]! : options.checkAfterMs;
}
