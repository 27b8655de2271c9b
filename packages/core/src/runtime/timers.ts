/** What a set timer answers: the host's timer object (whose `unref` lets the process exit), or a simulation's handle. */
export interface TimerHandle {
  unref?(): unknown;
}

/**
 * The timers a driver outside the core waits on (the runner's loops, the leadership lease keeper):
 * the host's own (`globalThis`), or the virtual ones of the deterministic simulation, which fire
 * when its seeded scheduler moves the virtual clock. The core itself never sets a timer.
 */
export interface Timers {
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle | undefined): void;
  setInterval(fn: () => void, ms: number): TimerHandle;
  clearInterval(handle: TimerHandle | undefined): void;
}
