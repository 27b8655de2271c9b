/**
 * The processing state machine of one inbound message (SPEC §2.1), as pure functions.
 *
 * States:
 * - `PENDING`: entered on enqueue (or by replay). Waits for its turn at the head; leaves through
 *   one of the outcomes below when the pump processes it.
 * - `FAILED`: entered when an attempt fails for a reason of this message (CODEC_ERROR,
 *   UNSUPPORTED, INFRA). Not terminal: it keeps the head, so nothing behind it moves. Leaves when
 *   due again (another attempt), or to DEAD(EXHAUSTED) when attempts or the head deadline run out
 *   (UNSUPPORTED under its own short budget, `UnsupportedPolicy`), or by replay to PENDING.
 * - `SUCCEEDED`: terminal. The message changed state (or was an idempotent re-delivery).
 * - `SKIPPED`: terminal. Nothing to apply: a duplicate identity, an ignorable type, no request, no
 *   flight. The reason says which.
 * - `DEAD`: terminal. MALFORMED, PROTOCOL or EXHAUSTED; kept for review, replayable only for
 *   EXHAUSTED (and the replayable classes it came from).
 *
 * A dependency outage is not an event of this machine: the pump pauses and no state changes.
 */
import { ErrorClass } from "../errors/error-class.js";
import type { Meta } from "../model/meta.js";
import { ProcStatus, type ProcRecord } from "../model/proc-record.js";
import { backoffAfter, DEFAULT_UNSUPPORTED_POLICY, type RetryPolicy, type UnsupportedPolicy } from "../runtime/retry-policy.js";

/** What happened to a message; the input of {@link evolveProc}. */
export type ProcEvent =
  | { readonly type: "succeeded"; readonly reason?: string }
  | { readonly type: "skipped"; readonly reason: string }
  | { readonly type: "rejected"; readonly errorClass: "MALFORMED" | "PROTOCOL"; readonly reason: string }
  | {
      readonly type: "failed";
      readonly errorClass: "CODEC_ERROR" | "UNSUPPORTED" | "INFRA";
      readonly reason: string;
    }
  | { readonly type: "exhausted"; readonly reason: string }
  | { readonly type: "replayed" };

/** Facts an attempt learned that every outcome keeps: the first attempt time and the binding. */
export interface AttemptFacts {
  readonly now: number;
  readonly identityKey?: string | null;
  readonly meta?: Meta | null;
}

const LEGAL_FROM: Readonly<Record<ProcEvent["type"], readonly ProcStatus[]>> = {
  succeeded: [ProcStatus.PENDING, ProcStatus.FAILED],
  skipped: [ProcStatus.PENDING, ProcStatus.FAILED],
  rejected: [ProcStatus.PENDING, ProcStatus.FAILED],
  failed: [ProcStatus.PENDING, ProcStatus.FAILED],
  exhausted: [ProcStatus.PENDING, ProcStatus.FAILED],
  replayed: [ProcStatus.FAILED, ProcStatus.DEAD],
};

/** Thrown when a transition is not legal from the record's state: a bug, never input. */
export class IllegalTransitionError extends Error {
  override readonly name = "IllegalTransitionError";
}

/**
 * The one choke point for every processing transition. A failure that brings attempts to
 * `maxAttempts` becomes DEAD(EXHAUSTED) at once rather than waiting out a last backoff; an
 * UNSUPPORTED failure counts against `unsupported.maxAttempts` instead.
 */
export function evolveProc(
  record: ProcRecord,
  event: ProcEvent,
  facts: AttemptFacts,
  policy: RetryPolicy,
  unsupported: UnsupportedPolicy = DEFAULT_UNSUPPORTED_POLICY,
): ProcRecord {
  if (!LEGAL_FROM[event.type].includes(record.status)) {
    throw new IllegalTransitionError(`message ${record.msgId}: ${event.type} is not legal from ${record.status}`);
  }
  const now = facts.now;
  const bound = {
    identityKey: facts.identityKey !== undefined ? facts.identityKey : record.identityKey,
    meta: facts.meta !== undefined ? facts.meta : record.meta,
  };
  const attempted = { ...record, ...bound, headSince: record.headSince ?? now, updatedAt: now };
  switch (event.type) {
    case "succeeded":
      return { ...attempted, status: ProcStatus.SUCCEEDED, nextAttemptAt: null, errorClass: null, reason: event.reason ?? null };
    case "skipped":
      return { ...attempted, status: ProcStatus.SKIPPED, nextAttemptAt: null, errorClass: null, reason: event.reason };
    case "rejected":
      return dead(attempted, event.errorClass, event.reason, record.attempts, now);
    case "exhausted":
      return dead(attempted, ErrorClass.EXHAUSTED, event.reason, record.attempts, now);
    case "failed": {
      const attempts = record.attempts + 1;
      const history = [...record.history, { at: now, errorClass: event.errorClass, reason: event.reason, attempt: attempts }];
      if (attempts >= (event.errorClass === ErrorClass.UNSUPPORTED ? unsupported.maxAttempts : policy.maxAttempts)) {
        return {
          ...attempted,
          attempts,
          history,
          status: ProcStatus.DEAD,
          errorClass: ErrorClass.EXHAUSTED,
          reason: `attempts exhausted (${attempts}); last: ${event.errorClass}: ${event.reason}`,
          nextAttemptAt: null,
        };
      }
      return {
        ...attempted,
        attempts,
        history,
        status: ProcStatus.FAILED,
        errorClass: event.errorClass,
        reason: event.reason,
        nextAttemptAt: now + backoffAfter(policy, attempts),
      };
    }
    case "replayed":
      // Identity and history stay: a replayed message is the same message, not a new one.
      return { ...record, status: ProcStatus.PENDING, attempts: 0, nextAttemptAt: null, headSince: null, updatedAt: now };
  }
}

function dead(record: ProcRecord, errorClass: ErrorClass, reason: string, attempts: number, now: number): ProcRecord {
  return {
    ...record,
    status: ProcStatus.DEAD,
    errorClass,
    reason,
    nextAttemptAt: null,
    history: [...record.history, { at: now, errorClass, reason, attempt: attempts }],
  };
}

/** A fresh PENDING record for a mailbox row, with its intake trace when it has one. */
export const newProcRecord = (msgId: number, receivedAt: number, now: number, traceparent: string | null = null): ProcRecord => ({
  msgId,
  status: ProcStatus.PENDING,
  attempts: 0,
  nextAttemptAt: null,
  headSince: null,
  identityKey: null,
  meta: null,
  errorClass: null,
  reason: null,
  history: [],
  receivedAt,
  updatedAt: now,
  ...(traceparent === null ? {} : { traceparent }),
});
