import type { LoopContext, LoopSpec } from "./loop-spec.js";

/**
 * The maintenance jobs (history sweep, snap-log cleanup, PROC_STATE archive, reconciler), each on
 * its own schedule and never starving the pump.
 */
export function maintenanceLoops(_ctx: LoopContext): LoopSpec[] {
  return [];
}
