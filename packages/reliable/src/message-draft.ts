import { ReliableMessageError } from "./reliable-message-error.js";
import type { ReliableMessageDraft } from "./reliable-message.js";

/** Queue names double as delivery target and Kafka topic suffix: Kafka's legal characters only. */
export const QUEUE_NAME = /^[A-Za-z0-9._-]{1,100}$/;
// C0 controls and DEL: they break logs, headers and keys.
const CONTROL = /[\u0000-\u001f\u007f]/;

const LIMITS = { messageId: 128, key: 128, dataType: 50, remark: 200, field: 200, headers: 20, headerKey: 100, headerValue: 1_000 } as const;
/** The longest per-message check delay: 30 days (a longer one is a mistake, not a policy). */
export const MAX_CHECK_DELAY_MS = 30 * 24 * 3_600_000;

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
    headers: checkHeaders(draft.headers, messageId),
    checkDelayMs: checkDelay(draft.checkDelayMs, messageId),
    key: checkKey(draft.key, messageId),
  };
}

/** Headers: a plain object of ≤ 20 string entries, keys 1–100 and values ≤ 1,000 characters; a copy, or null. */
function checkHeaders(value: unknown, messageId: string): Readonly<Record<string, string>> | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "object" || Array.isArray(value)) throw invalid("headers is not an object of strings", messageId);
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > LIMITS.headers) throw invalid(`headers has more than ${LIMITS.headers} entries`, messageId);
  const out: Record<string, string> = {};
  for (const [key, v] of entries) {
    if (key.length === 0 || key.length > LIMITS.headerKey) throw invalid(`header name ${JSON.stringify(key.slice(0, 20))} is not 1–${LIMITS.headerKey} characters`, messageId);
    if (CONTROL.test(key)) throw invalid("a header name contains a control character", messageId);
    if (typeof v !== "string") throw invalid(`header ${key} is not a string`, messageId);
    if (v.length > LIMITS.headerValue) throw invalid(`header ${key} is longer than ${LIMITS.headerValue} characters`, messageId);
    Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
  }
  return entries.length === 0 ? null : out;
}

/** A business key: 1–128 characters without control characters (it is a Kafka record key and an index entry), or null. */
function checkKey(value: unknown, messageId: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "string" || value.length === 0 || value.length > LIMITS.key) throw invalid(`key must be a string of 1–${LIMITS.key} characters`, messageId);
  if (CONTROL.test(value)) throw invalid("key contains a control character", messageId);
  return value;
}

function checkDelay(value: unknown, messageId: string): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0 || value > MAX_CHECK_DELAY_MS) {
    throw invalid(`checkDelayMs must be an integer from 0 to ${MAX_CHECK_DELAY_MS}: ${String(value)}`, messageId);
  }
  return value;
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
