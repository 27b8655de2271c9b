/**
 * Timing of the check-back and recovery jobs. All durations in milliseconds.
 *
 * The seed reads `message.send.1.time` … `message.send.5.time` (minutes) and
 * `message.max.send.times` from configuration without giving values; the defaults here are the
 * doubling steps 1, 2, 4, 8, 16 minutes and six sends (the first send plus five resends):
 * sends at 0, 1, 3, 7, 15 and 31 minutes, dead at 47 minutes without an acknowledgement.
 */
export interface ReliableMessageOptions {
  /** A WAITING_CONFIRM message this old is checked back with its producer. Default 60 s. */
  readonly checkAfterMs: number;
  /** The wait after an inconclusive check-back ("later", checker error, no checker). Default 60 s. */
  readonly checkIntervalMs: number;
  /** Inconclusive check-backs after which each further one raises an alert. Default 10. */
  readonly maxChecks: number;
  /** The wait between check-backs once `maxChecks` is reached. Default 1 h. */
  readonly exhaustedCheckIntervalMs: number;
  /**
   * How long send number n waits for its acknowledgement: `resendWaitsMs[n - 1]`, the last entry
   * for every later send. Default 1, 2, 4, 8, 16 minutes.
   */
  readonly resendWaitsMs: readonly number[];
  /** A message whose send number `maxSends` went unacknowledged is marked dead. Default 6. */
  readonly maxSends: number;
}

const MINUTE = 60_000;

export const DEFAULT_RELIABLE_MESSAGE_OPTIONS: ReliableMessageOptions = {
  checkAfterMs: MINUTE,
  checkIntervalMs: MINUTE,
  maxChecks: 10,
  exhaustedCheckIntervalMs: 60 * MINUTE,
  resendWaitsMs: [1 * MINUTE, 2 * MINUTE, 4 * MINUTE, 8 * MINUTE, 16 * MINUTE],
  maxSends: 6,
};

/** The defaults overridden by `partial`, checked: a bad value throws a `RangeError`. */
export function reliableMessageOptions(partial: Partial<ReliableMessageOptions> = {}): ReliableMessageOptions {
  const o = { ...DEFAULT_RELIABLE_MESSAGE_OPTIONS, ...partial };
  for (const name of ["checkAfterMs", "checkIntervalMs", "exhaustedCheckIntervalMs"] as const) {
    if (!Number.isFinite(o[name]) || o[name] < 0) throw new RangeError(`${name} must be a non-negative number: ${o[name]}`);
  }
  if (!Number.isInteger(o.maxChecks) || o.maxChecks < 1) throw new RangeError(`maxChecks must be a positive integer: ${o.maxChecks}`);
  if (!Number.isInteger(o.maxSends) || o.maxSends < 1) throw new RangeError(`maxSends must be a positive integer: ${o.maxSends}`);
  if (o.resendWaitsMs.length === 0 || o.resendWaitsMs.some((w) => !Number.isFinite(w) || w <= 0)) {
    throw new RangeError(`resendWaitsMs must be positive numbers, at least one: ${o.resendWaitsMs.join(", ")}`);
  }
  return { ...o, resendWaitsMs: [...o.resendWaitsMs] };
}

/** How long send number `sendCount` (1-based) waits for its acknowledgement. */
export function ackWaitAfter(options: ReliableMessageOptions, sendCount: number): number {
  const waits = options.resendWaitsMs;
  const i = Math.min(Math.max(sendCount, 1), waits.length) - 1;
  return waits[i] ?? waits[waits.length - 1]!;
}

/** The wait before the next check-back after `checkCount` inconclusive ones. */
export const checkWaitAfter = (options: ReliableMessageOptions, checkCount: number): number =>
  checkCount >= options.maxChecks ? options.exhaustedCheckIntervalMs : options.checkIntervalMs;
