import type { LoopContext, LoopSpec } from "./loop-spec.js";

/** Loops of the upstream request coordinator (timeouts, recovery of unconfirmed sends). */
export function requestLoops(_ctx: LoopContext): LoopSpec[] {
  return [];
}
