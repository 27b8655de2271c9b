/**
 * The only source of time in the core. Time is epoch milliseconds (UTC instants); airport-local
 * times are strings handled by the codec.
 *
 * Every implementation guarantees:
 * - `now()` is the wall clock: it may jump in either direction (an NTP step, a VM resumed), so it
 *   dates things (a row's `received_at`, a lease's expiry in a store) but never times a wait;
 * - `monotonic()` never goes backwards and is not moved by a wall-clock jump: every elapsed time
 *   that decides something (the intake's gap grace, a leader's window) is measured on it. Its
 *   origin is arbitrary, so only differences of two readings mean anything.
 */
export interface Clock {
  /** Current instant in epoch milliseconds (the wall clock). */
  now(): number;
  /** Milliseconds since an arbitrary origin, unaffected by wall-clock jumps; for elapsed times only. */
  monotonic(): number;
}

/** The real clock, for the runner. Tests use `ManualClock` from `@msgx/core/fakes`. */
export const systemClock: Clock = { now: () => Date.now(), monotonic: () => performance.now() };
