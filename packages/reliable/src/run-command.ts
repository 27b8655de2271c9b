import type { Clock } from "@msgx/core";
import { deadLetterDraft, sendDraft } from "./message-envelope.js";
import { decideReliableMessage, evolveReliableMessage, impliesDeadLetter, impliesSend, type ReliableMessageCommand, type ReliableMessageEvent } from "./message-machine.js";
import { ReliableMessageError } from "./reliable-message-error.js";
import type { ReliableMessageOptions } from "./reliable-message-options.js";
import type { ReliableMessageWrite, ReliableMessageStore } from "./reliable-message-store.js";
import type { ReliableMessage } from "./reliable-message.js";

/** What a command did to one message. */
export interface ReliableMessageOutcome {
  readonly messageId: string;
  /** True when the command changed the store; false for a no-op (a retry, a message already there). */
  readonly applied: boolean;
  /** The event applied, when one was. */
  readonly event: ReliableMessageEvent["type"] | null;
  /** Why nothing was done, for a no-op. */
  readonly reason: string | null;
  /** The message after the command (undefined when it is gone or was never there). */
  readonly message: ReliableMessage | undefined;
  /** The EVENT_ID of the outbox row the command wrote, when it sent (the dead-letter row is not a send). */
  readonly eventId: number | null;
}

export interface ReliableMessageCommandDeps {
  readonly store: ReliableMessageStore;
  readonly clock: Clock;
  readonly options: ReliableMessageOptions;
  /** Compare-and-set rounds before giving up with `CONFLICT` (default 5). */
  readonly casAttempts?: number;
}

/**
 * Reads the message, decides, evolves, and writes the change (with its outbox row when it sends,
 * or its dead-letter row when it dies) as one compare-and-set. A lost compare-and-set means someone else changed the message: read
 * again and decide again, so a concurrent confirm, check-back or acknowledgement is seen and never
 * doubled. Store errors propagate unchanged (`COMMIT_UNKNOWN` included: the caller re-reads or
 * retries the command, which is safe since every command is idempotent).
 *
 * `current` is the state the caller already read, saving the first read (jobs pass what `due`
 * returned).
 */
export async function runReliableMessageCommand(
  deps: ReliableMessageCommandDeps,
  messageId: string,
  command: ReliableMessageCommand,
  current?: ReliableMessage | null,
): Promise<ReliableMessageOutcome> {
  const attempts = deps.casAttempts ?? 5;
  let state: ReliableMessage | undefined = current === null ? undefined : current;
  let known = current !== undefined;
  for (let round = 1; round <= attempts; round++) {
    if (!known) state = await deps.store.get(messageId);
    known = false;
    const ctx = { now: deps.clock.now(), options: deps.options };
    const decision = decideReliableMessage(command, state, ctx);
    if (decision.kind === "reject") throw new ReliableMessageError(decision.code, `message ${messageId}: ${decision.reason}`, messageId);
    if (decision.kind === "noop") {
      return { messageId, applied: false, event: null, reason: decision.reason, message: state, eventId: null };
    }
    const next = evolveReliableMessage(state, decision.event, ctx);
    const send = next !== undefined && impliesSend(decision.event) ? sendDraft(next) : null;
    const deadLetter = next !== undefined && impliesDeadLetter(decision.event) ? deadLetterDraft(next) : null;
    const write: ReliableMessageWrite =
      state === undefined
        ? { op: "insert", message: next!, send }
        : next === undefined
          ? { op: "delete", messageId, expectedVersion: state.version }
          : { op: "update", expectedVersion: state.version, message: next, send, deadLetter };
    const result = await deps.store.commit(write);
    if (result.ok) {
      // The store recorded the send's EVENT_ID on the message in the same transaction.
      const message = next !== undefined && send !== null ? { ...next, lastEventId: result.eventId } : next;
      return { messageId, applied: true, event: decision.event.type, reason: null, message, eventId: send !== null ? result.eventId : null };
    }
  }
  throw new ReliableMessageError("CONFLICT", `message ${messageId}: still changing after ${attempts} compare-and-set rounds`, messageId);
}
