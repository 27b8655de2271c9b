import type { TimerHandle, Timers } from "@msgx/core";

/** The host's timers (the default of every loop). */
export const systemTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout> | undefined),
  setInterval: (fn, ms) => setInterval(fn, ms),
  clearInterval: (h) => clearInterval(h as ReturnType<typeof setInterval> | undefined),
};

/**
 * A sleep that ends early on `wake()` or abort. The one place the runner waits on a timer, so
 * "wake the pump at once" (ingress) and "stop now" (shutdown) are the same mechanism. Its timers
 * are the host's unless given (the deterministic simulation gives virtual ones).
 */
export class WakeableSleep {
  #wake: (() => void) | undefined;
  #woken = false;

  constructor(private readonly timers: Timers = systemTimers) {}

  /** Ends the current sleep, or makes the next one return at once. */
  wake(): void {
    this.#woken = true;
    this.#wake?.();
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (this.#woken || signal?.aborted || ms <= 0) {
      this.#woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        this.timers.clearTimeout(timer);
        signal?.removeEventListener("abort", done);
        this.#wake = undefined;
        this.#woken = false;
        resolve();
      };
      const timer: TimerHandle = this.timers.setTimeout(done, ms);
      this.#wake = done;
      signal?.addEventListener("abort", done, { once: true });
    });
  }
}
