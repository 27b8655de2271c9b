/**
 * The only source of time in the core. Time is epoch milliseconds (UTC instants); airport-local
 * times are strings handled by the codec. Implementations must never go backwards within a process.
 */
export interface Clock {
  /** Current instant in epoch milliseconds. */
  now(): number;
}

/** The real clock, for the runner. Tests use `ManualClock` from `@msgx/core/fakes`. */
export const systemClock: Clock = { now: () => Date.now() };
