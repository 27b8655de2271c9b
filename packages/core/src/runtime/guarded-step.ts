import { errorMessage } from "../errors/msgx-error.js";
import type { Clock } from "./clock.js";
import type { Logger } from "./logger.js";
import { Breaker, closedBreaker, type BreakerPolicy, type BreakerState } from "./outage-breaker.js";
import { SimulatedCrashMarker } from "./simulated-crash.js";

/** The breaker a guarded step reads and replaces: one per pump, dispatcher or flusher. */
export interface BreakerCell {
  breaker: BreakerState;
}

/** How one owner's steps are guarded: what counts as an outage, what it logs, what it returns. */
export interface StepGuard<R> {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly policy: BreakerPolicy;
  /** Log lines on opening and closing the breaker; `fields` (the target, say) lead every entry. */
  readonly log: { readonly paused: string; readonly recovered: string; readonly fields?: Readonly<Record<string, unknown>> };
  /** True for an error that is the dependency's trouble (pause, spend nothing); any other is rethrown. */
  pauses(error: unknown, signal?: AbortSignal): boolean;
  /** The step's answer while the breaker is open: `until` is when to try again. */
  outage(error: string, until: number): R;
  /**
   * Sees every error the work threw, first: a result returned ends the step with it and leaves the
   * breaker as it was (the pump's FENCED); undefined goes on to the outage rule.
   */
  caught?(error: unknown): R | undefined;
}

/**
 * One breaker-guarded step (SPEC §2.1 outages): while the breaker is open and not yet due for a
 * probe, the work does not run; an outage opens it (or doubles its wait) and spends no attempt;
 * a step that succeeds closes it. `work` gets the step's instant and whether it is a probe after
 * an outage. A simulated crash always propagates.
 */
export async function guardedStep<R>(
  cell: BreakerCell,
  guard: StepGuard<R>,
  work: (now: number, probing: boolean) => Promise<R>,
  signal?: AbortSignal,
): Promise<R> {
  const now = guard.clock.now();
  if (!Breaker.mayTry(cell.breaker, now)) return guard.outage("breaker open", cell.breaker.probeAt);
  try {
    const result = await work(now, Breaker.isOpen(cell.breaker));
    if (Breaker.isOpen(cell.breaker)) {
      guard.logger.info(guard.log.recovered, { ...guard.log.fields, outageMs: now - (cell.breaker.openedAt ?? now) });
      cell.breaker = Breaker.onSuccess(cell.breaker);
    }
    return result;
  } catch (e) {
    const handled = guard.caught?.(e);
    if (handled !== undefined) return handled;
    if (e instanceof SimulatedCrashMarker || !guard.pauses(e, signal)) throw e;
    cell.breaker = Breaker.onOutage(cell.breaker, now, guard.policy);
    guard.logger.warn(guard.log.paused, { ...guard.log.fields, error: errorMessage(e), retryAt: cell.breaker.probeAt });
    return guard.outage(errorMessage(e), cell.breaker.probeAt);
  }
}

/**
 * One owner's breaker (a pump, dispatcher or flusher) with the guard of its steps: every step of
 * the owner runs through {@link GuardedSteps.run}, starting from a closed breaker.
 */
export class GuardedSteps<R> {
  readonly #cell: BreakerCell = { breaker: closedBreaker };
  readonly #guard: StepGuard<R>;

  constructor(guard: StepGuard<R>) {
    this.#guard = guard;
  }

  get breaker(): BreakerState {
    return this.#cell.breaker;
  }

  /** {@link guardedStep} on this owner's breaker. */
  run(work: (now: number, probing: boolean) => Promise<R>, signal?: AbortSignal): Promise<R> {
    return guardedStep(this.#cell, this.#guard, work, signal);
  }
}
