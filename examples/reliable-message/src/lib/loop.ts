import { errorMessage, type Logger } from "@msgx/core";

/** One unit of work; resolves to how long to wait before the next (0 = at once). */
export type Step = () => Promise<number>;

/**
 * Runs `step` until `signal` aborts: the timer side of a core `step()` driver (the core never
 * sleeps). A failing step is logged and retried after a growing pause, up to 10 s.
 */
export async function runLoop(name: string, step: Step, signal: AbortSignal, logger: Logger): Promise<void> {
  let failures = 0;
  while (!signal.aborted) {
    let delay: number;
    try {
      delay = await step();
      failures = 0;
    } catch (e) {
      failures += 1;
      delay = Math.min(10_000, 250 * 2 ** (failures - 1));
      logger.warn(`${name}: step failed`, { error: errorMessage(e), retryInMs: delay });
    }
    await sleep(delay, signal);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
