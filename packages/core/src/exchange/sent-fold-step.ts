import type { RouterStep, StepOutcome } from "./wake-edges.js";
import type { OutboxStore } from "../delivery/outbox-store.js";

/** The router step that folds sent marks into the event rows. */
export const SENT_FOLD_STEP = "sent-fold";

/** How many marks one fold statement moves, and how long the step waits after one that found fewer. */
export const SENT_FOLD = { limit: 5_000, everyMs: 1_000 } as const;

/**
 * `OutboxStore.foldSent` off the relay's path: once a second, and again at once while a fold
 * moves a full `limit` (a backlog of marks after a burst). Reads of a target's head skip the marks
 * not folded yet one by one, so the fold keeps that skip to about a second of sends; no reader's
 * answer depends on it.
 */
export function sentFoldStep(outbox: OutboxStore, options: { readonly limit: number; readonly everyMs: number } = SENT_FOLD): RouterStep {
  return {
    name: SENT_FOLD_STEP,
    async run(): Promise<StepOutcome> {
      const moved = await outbox.foldSent(options.limit);
      return { after: moved >= options.limit ? 0 : options.everyMs, wake: [] };
    },
  };
}
