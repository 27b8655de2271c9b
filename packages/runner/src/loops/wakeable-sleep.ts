/**
 * A sleep that ends early on `wake()` or abort. The one place the runner waits on a timer, so
 * "wake the pump at once" (ingress) and "stop now" (shutdown) are the same mechanism.
 */
export class WakeableSleep {
  #wake: (() => void) | undefined;
  #woken = false;

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
        clearTimeout(timer);
        signal?.removeEventListener("abort", done);
        this.#wake = undefined;
        this.#woken = false;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#wake = done;
      signal?.addEventListener("abort", done, { once: true });
    });
  }
}
