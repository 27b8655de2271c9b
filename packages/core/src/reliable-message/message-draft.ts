import { ReliableMessageError } from "./reliable-message-error.js";
import type { ReliableMessageDraft } from "./reliable-message.js";

/** Queue names double as delivery target and Kafka topic suffix: Kafka's legal characters only. */
export const QUEUE_NAME = /^[A-Za-z0-9._-]{1,100}$/;
// C0 controls and DEL: they break logs, headers and keys.
const CONTROL = /[\u0000-\u001f\u007f]/;

const LIMITS = { messageId: 128, dataType: 50, remark: 200, field: 200 } as const;

/**
 * Checks a draft and returns it with every optional field present (null when not given).
 * Throws `ReliableMessageError("INVALID_MESSAGE")` naming the first rule it breaks.
 */
export function checkReliableMessageDraft(draft: ReliableMessageDraft | null | undefined): Required<ReliableMessageDraft> {
  if (draft === null || draft === undefined || typeof draft !== "object") throw invalid("the message is empty");
  const { messageId, body, consumerQueue } = draft;
  if (typeof messageId !== "string" || messageId.length === 0) throw invalid("messageId is empty");
  if (messageId.length > LIMITS.messageId) throw invalid(`messageId is longer than ${LIMITS.messageId} characters`, messageId);
  if (CONTROL.test(messageId)) throw invalid("messageId contains a control character", messageId);
  if (typeof body !== "string") throw invalid("body is not a string", messageId);
  if (typeof consumerQueue !== "string" || consumerQueue.length === 0) throw invalid("consumerQueue is empty", messageId);
  if (!QUEUE_NAME.test(consumerQueue)) throw invalid(`consumerQueue ${JSON.stringify(consumerQueue)} is not [A-Za-z0-9._-]{1,100}`, messageId);
  return {
    messageId,
    body,
    consumerQueue,
    dataType: optional(draft.dataType, "dataType", LIMITS.dataType, messageId),
    remark: optional(draft.remark, "remark", LIMITS.remark, messageId),
    field1: optional(draft.field1, "field1", LIMITS.field, messageId),
    field2: optional(draft.field2, "field2", LIMITS.field, messageId),
    field3: optional(draft.field3, "field3", LIMITS.field, messageId),
  };
}

/** Checks a message id given alone (get, confirm, delete …). */
export function checkMessageId(messageId: string): string {
  if (typeof messageId !== "string" || messageId.length === 0) throw invalid("messageId is empty");
  return messageId;
}

function optional(value: string | null | undefined, name: string, max: number, messageId: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "string") throw invalid(`${name} is not a string`, messageId);
  if (value.length > max) throw invalid(`${name} is longer than ${max} characters`, messageId);
  return value;
}

const invalid = (why: string, messageId?: string): ReliableMessageError =>
  new ReliableMessageError("INVALID_MESSAGE", `invalid message: ${why}`, messageId);
