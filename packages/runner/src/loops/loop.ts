import { errorMessage, type Logger } from "@msgx/core";
import { WakeableSleep } from "./wakeable-sleep.js";
import { exponentialBackoff } from "@msgx/core";

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

/**
 * Drives a core `step()` until `signal` aborts. A step is never interrupted half-way: shutdown
 * waits for it. An unexpected error is logged and retried with a growing pause; it never kills
 * the process (the step itself is transactional).
 */
export function startLoop(name: string, step: LoopStep, deps: { logger: Logger; signal: AbortSignal }): Loop {
  const sleeper = new WakeableSleep();
  const done = (async () => {
    let failures = 0;
    while (!deps.signal.aborted) {
      let delay: number;
      try {
        delay = await step(deps.signal);
        failures = 0;
      } catch (e) {
        // A step cut short by shutdown is not a failure.
        if (deps.signal.aborted) break;
        failures += 1;
        delay = exponentialBackoff(ERROR_BACKOFF, failures);
        deps.logger.error(`${name} step failed`, { error: errorMessage(e), retryInMs: delay });
      }
      await sleeper.sleep(delay, deps.signal);
    }
  })();
  return { name, wake: () => sleeper.wake(), done };
}
