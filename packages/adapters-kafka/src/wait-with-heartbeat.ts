/**
 * Waits `ms`, calling `heartbeat` at least every `everyMs` so the consumer group keeps this member
 * (and its partitions) while a record backs off. Rejects with the signal's reason when aborted.
 */
export async function waitWithHeartbeat(ms: number, heartbeat: () => Promise<void>, everyMs: number, signal: AbortSignal): Promise<void> {
  let left = Math.max(0, ms);
  while (left > 0) {
    signal.throwIfAborted();
    const slice = Math.min(left, everyMs);
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal.reason);
      };
      const timer = setTimeout(() => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      }, slice);
      signal.addEventListener("abort", onAbort, { once: true });
    });
    left -= slice;
    await heartbeat();
  }
  signal.throwIfAborted();
}
