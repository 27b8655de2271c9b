import { states, type ValueOf } from "../base/states.js";

/**
 * Pipeline leadership as a lease (issue 24), as pure functions: `decideLease` turns what the lease
 * keeper saw into an event (or nothing), `evolveLease` applies it. The loop that calls the
 * {@link LeaseStore} on timers lives outside the core and changes state only through these two.
 *
 * The store grants the lease for `ttlMs` by ITS clock, counted from when it executed the request.
 * The leader never compares its clock with the store's: it counts on its own monotonic clock from
 * the moment it SENT the request (earlier than the store executed it), and stops `safetyMarginMs`
 * before that count runs out. So its leading window always ends before the store's lease does,
 * whatever the skew between hosts, however long the request or the answer took; only the rate at
 * which the two clocks run must agree within the margin.
 *
 * Phases:
 * - `FOLLOWING`: a standby. Entered at start. It asks the store for the lease on each poll; left by
 *   `acquired` (the store granted it with a new fencing epoch) to LEADING.
 * - `LEADING`: runs the pipeline with `epoch` as its fence, and may START a pipeline step only
 *   while `now < validUntil` ({@link mayLead}). Each `renewed` answer moves `validUntil` to
 *   `sentAt + ttlMs - safetyMarginMs` (never back). Left to LOST by a `renew-refused` (another
 *   process took the lease: the epoch moved) or by a `tick` at or past `validUntil` (the renewals
 *   did not arrive in time: a frozen process, a slow or unreachable database).
 * - `LOST`: terminal. The process steps down: it starts nothing more, and the store's epoch check
 *   refuses (FENCED) any pipeline transaction it had under way. It exits; a supervisor restarts it
 *   as a standby (a new FOLLOWING).
 */

/** The phases of one process's leadership. */
export const LeasePhase = states("FOLLOWING", "LEADING", "LOST");
export type LeasePhase = ValueOf<typeof LeasePhase>;

export type LeaseState =
  | { readonly phase: typeof LeasePhase.FOLLOWING }
  | { readonly phase: typeof LeasePhase.LEADING; readonly epoch: number; readonly validUntil: number }
  | { readonly phase: typeof LeasePhase.LOST; readonly epoch: number; readonly why: string };

/** How long a lease lasts, how often the leader renews it, how early it stops trusting it. */
export interface LeaseTiming {
  /** The lease the store grants per acquire or renew, by the store's clock. */
  readonly ttlMs: number;
  /** The leader renews this often: `ttlMs / 3`, so two renewals in a row may fail and the lease still holds. */
  readonly renewEveryMs: number;
  /** The leader stops starting steps this long before its own count of the lease runs out (clock rate drift, scheduling). */
  readonly safetyMarginMs: number;
}

/** The timing of a lease of `ttlMs` (at least 300 ms: the renewal and margin need room). */
export function leaseTiming(ttlMs: number): LeaseTiming {
  if (!Number.isInteger(ttlMs) || ttlMs < 300) throw new RangeError(`lease ttl ${ttlMs} ms: an integer of at least 300 ms`);
  return { ttlMs, renewEveryMs: Math.floor(ttlMs / 3), safetyMarginMs: Math.floor(ttlMs / 5) };
}

/** What the lease keeper saw; `sentAt` is the keeper's own clock when it sent the request. */
export type LeaseCommand =
  | { readonly type: "acquired"; readonly epoch: number; readonly sentAt: number }
  | { readonly type: "renewed"; readonly sentAt: number }
  | { readonly type: "renew-refused"; readonly why: string }
  /** Time passed: checks the leading window. */
  | { readonly type: "tick" };

export type LeaseEvent =
  | { readonly type: "lead-started"; readonly epoch: number; readonly validUntil: number }
  | { readonly type: "lease-extended"; readonly validUntil: number }
  | { readonly type: "lease-lost"; readonly why: string };

export const initialLease: LeaseState = { phase: LeasePhase.FOLLOWING };

/** The event `command` causes at `now` (the keeper's clock), or undefined when nothing changes. */
export function decideLease(state: LeaseState, command: LeaseCommand, now: number, timing: LeaseTiming): LeaseEvent | undefined {
  const windowFrom = (sentAt: number) => sentAt + timing.ttlMs - timing.safetyMarginMs;
  switch (state.phase) {
    case LeasePhase.FOLLOWING:
      // A grant whose window already ran out (the answer came too late) is not leadership.
      if (command.type === "acquired" && now < windowFrom(command.sentAt)) {
        return { type: "lead-started", epoch: command.epoch, validUntil: windowFrom(command.sentAt) };
      }
      return undefined;
    case LeasePhase.LEADING:
      switch (command.type) {
        case "renewed": {
          const validUntil = windowFrom(command.sentAt);
          if (now >= state.validUntil) return lapsed(state, now);
          return validUntil > state.validUntil ? { type: "lease-extended", validUntil } : undefined;
        }
        case "renew-refused":
          return { type: "lease-lost", why: `renewal refused (epoch ${state.epoch}): ${command.why}` };
        case "tick":
          return now >= state.validUntil ? lapsed(state, now) : undefined;
        case "acquired":
          return undefined;
      }
    case LeasePhase.LOST:
      return undefined;
  }
}

function lapsed(state: { readonly epoch: number; readonly validUntil: number }, now: number): LeaseEvent {
  return { type: "lease-lost", why: `lease of epoch ${state.epoch} not renewed in time (${Math.round(now - state.validUntil)} ms past its window)` };
}

/** The state after `event`. */
export function evolveLease(state: LeaseState, event: LeaseEvent): LeaseState {
  switch (event.type) {
    case "lead-started":
      return { phase: LeasePhase.LEADING, epoch: event.epoch, validUntil: event.validUntil };
    case "lease-extended":
      return state.phase === LeasePhase.LEADING ? { ...state, validUntil: event.validUntil } : state;
    case "lease-lost":
      return state.phase === LeasePhase.LEADING ? { phase: LeasePhase.LOST, epoch: state.epoch, why: event.why } : state;
  }
}

/** Whether a pipeline step may START at `now`: leading, and inside the window of the last renewal. */
export function mayLead(state: LeaseState, now: number): boolean {
  return state.phase === LeasePhase.LEADING && now < state.validUntil;
}
