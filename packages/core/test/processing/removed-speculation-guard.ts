import { SpeculationSlot } from "../../src/processing/speculation-slot.js";

/** A check of `speculationVerdict` the guard-removal tests leave out. */
export type RemovedSpeculationGuard = "base-committed" | "fresh";

/**
 * Runs `body` with one check of every pump's speculations left out, planted from outside the
 * production code as the simulation's mutations are (packages/runner/test/sim/mutations.ts):
 * `SpeculationSlot.reuse` is patched to hand the verdict what passes that check — the speculation's
 * own base as the last commit, or the speculation's own time as the step's. Only pipelined pumps
 * hold a slot, so a world that does not pipeline is not touched. The patch is taken off after.
 */
export async function withRemovedSpeculationGuard<T>(guard: RemovedSpeculationGuard, body: () => Promise<T>): Promise<T> {
  const proto = SpeculationSlot.prototype;
  const reuse = proto.reuse;
  proto.reuse = function (this: SpeculationSlot, spec, ready, now, lastCommitted) {
    return guard === "base-committed" ? reuse.call(this, spec, ready, now, spec.base) : reuse.call(this, spec, ready, spec.now, lastCommitted);
  };
  try {
    return await body();
  } finally {
    proto.reuse = reuse;
  }
}
