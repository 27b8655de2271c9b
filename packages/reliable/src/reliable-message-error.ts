import { states, type ValueOf } from "@msgx/core";

/**
 * Why the service refused a call of its API: a fault of the caller's request, never of a
 * dependency (those cross the port as `MsgxError`). Not retriable as is.
 *
 * - `INVALID_MESSAGE`: the draft breaks a rule of `ReliableMessageDraft` (seed: message or queue empty).
 * - `NOT_FOUND`: no message with that id (seed: "根据消息id查找的消息为空").
 * - `ALREADY_EXISTS`: a message with that id is stored with other content or in another state.
 * - `NOT_FOUND` also for the acknowledgement or reject of an id the service does not hold.
 * - `ALREADY_EXISTS` also for the prepare of an id that is acknowledged or cancelled (ids are
 *   unique for the retention window; after the purge an id may be reused).
 * - `ILLEGAL_STATE`: the command makes no sense in the message's phase (resend an unconfirmed
 *   message, cancel a confirmed one, acknowledge one that was never sent).
 * - `CONFLICT`: the message kept changing under the call (compare-and-set lost every retry), or
 *   the call contradicts the message's end (confirming a cancelled message).
 * - `UNKNOWN_QUEUE`: the queue has no topic and the host may not create one (the runner's
 *   `createTopics: false`); the core never raises it.
 */
export const ReliableMessageErrorCode = states("INVALID_MESSAGE", "NOT_FOUND", "ALREADY_EXISTS", "ILLEGAL_STATE", "CONFLICT", "UNKNOWN_QUEUE");
export type ReliableMessageErrorCode = ValueOf<typeof ReliableMessageErrorCode>;

export class ReliableMessageError extends Error {
  override readonly name = "ReliableMessageError";
  constructor(
    readonly code: ReliableMessageErrorCode,
    message: string,
    readonly messageId?: string,
  ) {
    super(message);
  }
}

export const isReliableMessageError = (e: unknown, code?: ReliableMessageErrorCode): e is ReliableMessageError =>
  e instanceof ReliableMessageError && (code === undefined || e.code === code);
