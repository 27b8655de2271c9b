import type { ValueOf } from "../base/states.js";

/**
 * The named steps of the pipeline router. The names are also the loop names the runner logs.
 * - `intake`: the `InboxPoller` moves mailbox rows into the processing state and publishes the horizon.
 * - `pump`: the `Pump` processes the head run (up to the horizon) and writes outbox events.
 * - `backfill-sweep`: the `BackfillSweeper` redoes mailbox write-backs that did not happen after commit.
 * - `msg-dispatcher` / `ref-dispatcher`: a `MsgDispatcher` each for `KAFKA:msg` and `KAFKA:ref`.
 * - `schd-flusher`: the `SchdFlusher` for `KAFKA:schd`.
 */
export const PipelineStep = {
  INTAKE: "intake",
  PUMP: "pump",
  BACKFILL: "backfill-sweep",
  MSG_DELIVERY: "msg-dispatcher",
  REF_DELIVERY: "ref-dispatcher",
  SCHD_FLUSHER: "schd-flusher",
} as const;
export type PipelineStep = ValueOf<typeof PipelineStep>;

/**
 * Who wakes whom: the one table of the router's wake edges. A source is a step that did work, or an
 * event from outside the steps (ingress, replay). Waking a step ends its wait, so its next run
 * starts at once; waking never skips a run already going on.
 *
 * | source    | when                                              | wakes                                     |
 * |-----------|---------------------------------------------------|-------------------------------------------|
 * | `ingress` | a message was appended to the mailbox             | intake                                    |
 * | `intake`  | it enqueued rows or moved the horizon (its first step: above 0) | pump                      |
 * | `pump`    | it committed a run: the dispatchers of the targets its processors gave events to | msg-dispatcher, ref-dispatcher |
 * | `replay`  | an operator replay reset messages to PENDING      | pump                                      |
 * | `outbox`  | a job wrote outbox events (history-sweep tombstones) | msg-dispatcher, ref-dispatcher, schd-flusher |
 *
 * The schd flusher is not woken by the pump: it flushes on its own period or threshold.
 */
export const WAKE_EDGES = {
  ingress: [PipelineStep.INTAKE],
  intake: [PipelineStep.PUMP],
  pump: [PipelineStep.MSG_DELIVERY, PipelineStep.REF_DELIVERY],
  replay: [PipelineStep.PUMP],
  outbox: [PipelineStep.MSG_DELIVERY, PipelineStep.REF_DELIVERY, PipelineStep.SCHD_FLUSHER],
} as const satisfies Record<string, readonly PipelineStep[]>;
export type WakeSource = keyof typeof WAKE_EDGES;

/** What one step asks of the driver: when to run it again, and which steps to wake now. */
export interface StepOutcome {
  /** Milliseconds until the step wants to run again (0: at once). */
  readonly after: number;
  /** Steps whose wait ends now (names, built-in or added). */
  readonly wake: readonly string[];
}

/** A step the composer adds beside the pipeline's own (maintenance jobs, request coordinator, relay). */
export interface RouterStep {
  /** Unique among the router's steps; the runner names its loop after it. */
  readonly name: string;
  /** Does at most one bounded unit of work; never sleeps. */
  run(signal: AbortSignal): Promise<StepOutcome>;
}

/** An outcome that wakes nothing. */
export const after = (ms: number): StepOutcome => ({ after: ms, wake: [] });
