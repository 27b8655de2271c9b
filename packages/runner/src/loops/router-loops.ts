import type { Logger, PipelineRouter, Timers } from "@msgx/core";
import { startLoop, type Loop } from "./loop.js";

/** How soon a step held back by `mayStart` asks again. */
const NOT_LEADING_RECHECK_MS = 250;

/** The router's steps, each driven by its own loop. */
export interface RouterLoops {
  /** Ends the waits of the named steps, so each runs again at once. */
  wake(names: readonly string[]): void;
  /** Resolves when every loop has finished its current step and exited. */
  readonly done: Promise<void>;
}

/**
 * Starts one loop per router step, in the router's order. The loops keep the timers and only
 * apply what a step answers: they wake the steps it names and wait as long as it asks.
 */
export function driveRouter(
  router: Pick<PipelineRouter, "names" | "run">,
  deps: {
    logger: Logger;
    signal: AbortSignal;
    /** Whether a step may start now (the leadership lease's window); a step that may not waits and asks again. */
    mayStart?: () => boolean;
    /** The timers the loops wait on. Default: the host's (the simulation gives virtual ones). */
    timers?: Timers;
  },
): RouterLoops {
  const loops = new Map<string, Loop>();
  const wake = (names: readonly string[]) => {
    for (const name of names) loops.get(name)?.wake();
  };
  for (const name of router.names) {
    const loop = startLoop(
      name,
      async (signal) => {
        // Past the lease's window the leader starts nothing; the lease keeper reports the loss.
        if (deps.mayStart?.() === false) return NOT_LEADING_RECHECK_MS;
        const outcome = await router.run(name, signal);
        wake(outcome.wake);
        return outcome.after;
      },
      deps,
    );
    loops.set(name, loop);
  }
  return { wake, done: Promise.all([...loops.values()].map((l) => l.done)).then(() => undefined) };
}
