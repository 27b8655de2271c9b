import type { ErrorClass } from "../errors/error-class.js";
import type { Meta } from "./meta.js";
import { states, type ValueOf } from "../base/states.js";

/**
 * Processing states of an inbound message (SPEC §2.1). See `processing/proc-machine.ts` for how
 * each is entered and left.
 */
export const ProcStatus = states("PENDING", "FAILED", "SUCCEEDED", "SKIPPED", "DEAD");
export type ProcStatus = ValueOf<typeof ProcStatus>;

export const TERMINAL_STATUSES: ReadonlySet<ProcStatus> = new Set([
  ProcStatus.SUCCEEDED,
  ProcStatus.SKIPPED,
  ProcStatus.DEAD,
]);
export const isTerminal = (s: ProcStatus): boolean => TERMINAL_STATUSES.has(s);

/** One failure, kept forever in the record's history (replay never erases it). */
export interface ErrorEntry {
  readonly at: number;
  readonly errorClass: ErrorClass;
  readonly reason: string;
  readonly attempt: number;
}

/** A `PROC_STATE` row: the processing state of one mailbox message, keyed by its mailbox id. */
export interface ProcRecord {
  /** The mailbox (`CMINMSGS.ID`) id; also the FIFO order. */
  readonly msgId: number;
  readonly status: ProcStatus;
  /** Attempts spent on faults of this message. Outages never spend one. */
  readonly attempts: number;
  /** For FAILED: the earliest instant of the next attempt. */
  readonly nextAttemptAt: number | null;
  /** Stable start: the instant of the first attempt at the head (for the head deadline). */
  readonly headSince: number | null;
  /** The bound business identity, once the envelope was decoded. Kept by retries and replays. */
  readonly identityKey: string | null;
  readonly meta: Meta | null;
  readonly errorClass: ErrorClass | null;
  /** Why it ended where it did: `duplicate-of:<id>`, `ignored:<TYPE>`, an error message. */
  readonly reason: string | null;
  readonly history: readonly ErrorEntry[];
  readonly receivedAt: number;
  readonly updatedAt: number;
  /**
   * The W3C `traceparent` of the intake span that enqueued it (a child of the ingress request's
   * trace when there was one), set at enqueue and never changed; every outbox event of the message
   * carries its trace. Absent when it was enqueued without tracing.
   */
  readonly traceparent?: string | null;
}
