import { ProcStatus, type ProcRecord } from "../model/proc-record.js";
import { DEFAULT_UNSUPPORTED_POLICY, headDeadlineFor, type RetryPolicy, type UnsupportedPolicy } from "../runtime/retry-policy.js";

/** What the pump does next with its head (seed 000 §3.2). */
export type TickDecision =
  /** No unfinished message: sleep until the next poll or wake-up. */
  | { readonly action: "idle" }
  /** The head is beyond the intake's safe horizon: a smaller id may still appear. */
  | { readonly action: "await-horizon"; readonly msgId: number; readonly horizon: number }
  /** The head is FAILED and not due yet: wait until it is due, or until its deadline if that comes first. */
  | { readonly action: "wait"; readonly msgId: number; readonly until: number }
  /** The head is FAILED and has been held past the deadline. */
  | { readonly action: "exhaust"; readonly msgId: number; readonly reason: string }
  | { readonly action: "process"; readonly msgId: number };

export interface TickInput {
  readonly head: ProcRecord | undefined;
  readonly now: number;
  /** Ids above this are not safe to process yet (see `GapTracker`). */
  readonly horizon: number;
  readonly policy: RetryPolicy;
  /** The short budget of a FAILED(UNSUPPORTED) head. Default {@link DEFAULT_UNSUPPORTED_POLICY}. */
  readonly unsupported?: UnsupportedPolicy;
  /**
   * When this pump last became able to work: its start, or the end of its last dependency outage.
   * The head deadline counts from the later of this and the head's stable start, so neither a
   * restart nor an outage eats a healthy message's deadline.
   */
  readonly healthySince: number;
}

/** Pure: decides what to do with the head. FIFO lives here: only the head is ever a candidate. */
export function decideTick({ head, now, horizon, policy, healthySince, unsupported = DEFAULT_UNSUPPORTED_POLICY }: TickInput): TickDecision {
  if (head === undefined) return { action: "idle" };
  if (head.msgId > horizon) return { action: "await-horizon", msgId: head.msgId, horizon };
  if (head.status === ProcStatus.FAILED) {
    const since = Math.max(head.headSince ?? now, healthySince);
    const deadline = headDeadlineFor(head.errorClass, policy, unsupported);
    if (now - since >= deadline) {
      return { action: "exhaust", msgId: head.msgId, reason: `head held ${now - since} ms past the deadline (${deadline} ms)` };
    }
    if (head.nextAttemptAt !== null && now < head.nextAttemptAt) {
      return { action: "wait", msgId: head.msgId, until: Math.min(head.nextAttemptAt, since + deadline) };
    }
  }
  return { action: "process", msgId: head.msgId };
}
