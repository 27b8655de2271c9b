import { createMaintenanceJobs } from "../jobs/maintenance-schedule.js";
import type { LoopContext, LoopSpec } from "./loop-spec.js";

/**
 * The maintenance jobs (history sweep, snap-log cleanup, PROC_STATE archive, reconciler), each on
 * its own schedule and never starving the pump: see `jobs/maintenance-schedule.ts` and docs/jobs.md.
 */
export function maintenanceLoops(ctx: LoopContext): LoopSpec[] {
  return [...createMaintenanceJobs(ctx).loops];
}
