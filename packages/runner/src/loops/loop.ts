import { errorMessage, exponentialBackoff, type Logger, type Timers } from "@msgx/core";
import { WakeableSleep } from "./wakeable-sleep.js";

/** One unit of work; returns how long to wait before the next (0 = at once). */
export type LoopStep = (signal: AbortSignal) => Promise<number>;

export interface Loop {
  readonly name: string;
  /** Ends the current wait so the next step runs now. */
  wake(): void;
  /** Resolves when the loop has finished its current step and exited. */
  readonly done: Promise<void>;
}

const ERROR_BACKOFF = { initialMs: 1_000, maxMs: 30_000 };
/** The same failure again is logged at most this often (a missing table fails every retry for as long as it is missing). */
const REPEAT_LOG_MS = 10 * 60_000;

/**
 * Drives a core `step()` until `signal` aborts. A step is never interrupted half-way: shutdown
 * waits for it. An unexpected error is logged and retried with a growing pause; it never kills
 * the process (the step itself is transactional). A failure is logged when it starts and when its
 * message changes, then at most every 10 minutes while it repeats (with how many times it did),
 * and the recovery once: a log is not a retry counter.
 */
export function startLoop(name: string, step: LoopStep, deps: { logger: Logger; signal: AbortSignal; backoff?: { initialMs: number; maxMs: number }; timers?: Timers }): Loop {
  const sleeper = new WakeableSleep(deps.timers);
  const backoff = deps.backoff ?? ERROR_BACKOFF;
  const done = (async () => {
    let failures = 0;
    let logged: { error: string; at: number } | undefined;
    while (!deps.signal.aborted) {
      let delay: number;
      try {
        delay = await step(deps.signal);
        if (failures > 0) deps.logger.info(`${name} step recovered`, { failures });
        failures = 0;
        logged = undefined;
      } catch (e) {
        // A step cut short by shutdown is not a failure.
        if (deps.signal.aborted) break;
        failures += 1;
        delay = exponentialBackoff(backoff, failures);
        const error = errorMessage(e);
        const now = Date.now();
        if (logged?.error === error && now - logged.at < REPEAT_LOG_MS) {
          deps.logger.debug(`${name} step failed again`, { error, failures, retryInMs: delay });
        } else {
          deps.logger.error(`${name} step failed`, { error, retryInMs: delay, ...(failures > 1 ? { failures } : {}) });
          logged = { error, at: now };
        }
      }
      await sleeper.sleep(delay, deps.signal);
    }
  })();
  return { name, wake: () => sleeper.wake(), done };
}
