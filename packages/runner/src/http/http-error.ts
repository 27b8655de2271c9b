import { errorMessage, isMsgxError } from "@msgx/core";
import { isReliableMessageError } from "@msgx/reliable";
import { isTaskRequestError, TASK_REQUEST_ERROR_HTTP_STATUS } from "@msgx/tasks";
import type { FastifyError } from "fastify";
import { BodyEncodingError } from "./body-text.js";

/** A refusal the handler chose: answered with `status` and `{ error, message }` (and `code` when given). */
export class HttpError extends Error {
  override readonly name = "HttpError";
  constructor(
    readonly status: number,
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

/** The answer of a route the pipeline serves while this runner does not run it (`role`: starting, standby, stopping). */
export function notRunning(role: string): HttpError {
  return new HttpError(503, `msgx is not running the pipeline (${role})`);
}

/**
 * The JSON body of every error answer: a short class and a sentence; never a stack trace. `code`
 * names the refusal where a client may act on it (`ALREADY_EXISTS`, `UNKNOWN_QUEUE`, …).
 */
export interface ErrorBody {
  readonly error: string;
  readonly message: string;
  readonly code?: string;
}

/** The reliable-message service's refusals are the caller's mistakes: 4xx, never 500 (issue 20). */
const RELIABLE_STATUS: Readonly<Record<string, number>> = {
  INVALID_MESSAGE: 400,
  NOT_FOUND: 404,
  ALREADY_EXISTS: 409,
  ILLEGAL_STATE: 409,
  CONFLICT: 409,
  UNKNOWN_QUEUE: 422,
};

const REASONS: Readonly<Record<number, string>> = {
  400: "bad request",
  401: "unauthorized",
  404: "not found",
  405: "method not allowed",
  408: "request timeout",
  409: "conflict",
  413: "payload too large",
  415: "unsupported media type",
  422: "unprocessable entity",
  431: "request header fields too large",
  500: "internal error",
  502: "bad gateway",
  503: "unavailable",
};

/** `status` and body for anything a route threw: the client's mistakes are 4xx, only our faults 5xx. */
export function errorAnswer(e: unknown): { status: number; body: ErrorBody } {
  const status = statusOf(e);
  const code = e instanceof HttpError ? e.code : isReliableMessageError(e) || isTaskRequestError(e) ? e.code : undefined;
  const error = errorReason(status);
  return { status, body: { error, message: errorMessage(e), ...(code !== undefined ? { code } : {}) } };
}

/** The `error` of an answer with `status`: its reason phrase, in lower case. */
export function errorReason(status: number): string {
  return REASONS[status] ?? (status < 500 ? "bad request" : "internal error");
}

/** Every status the reliable-message service's refusals are answered with. */
export const RELIABLE_ERROR_STATUSES: readonly number[] = [...new Set([...Object.values(RELIABLE_STATUS), 409])];
/** Every status the task service's refusals are answered with. */
export const TASK_ERROR_STATUSES: readonly number[] = [...new Set(Object.values(TASK_REQUEST_ERROR_HTTP_STATUS))];

function statusOf(e: unknown): number {
  if (e instanceof HttpError || e instanceof BodyEncodingError) return e.status;
  if (isReliableMessageError(e)) return RELIABLE_STATUS[e.code] ?? 409;
  // The task service's refusals (issue 21): core's table, one place for the status of each code.
  if (isTaskRequestError(e)) return TASK_REQUEST_ERROR_HTTP_STATUS[e.code];
  // FENCED: this runner lost the leadership while the call was under way; nothing was written,
  // and the call succeeds again against the runner that leads now.
  if (isMsgxError(e)) return e.kind === "DEPENDENCY_UNAVAILABLE" || e.kind === "FENCED" ? 503 : 500;
  // fastify's own refusals (validation, body parsing, body limit, bad URL) carry a 4xx statusCode.
  const code = (e as Partial<FastifyError> | undefined)?.statusCode;
  return typeof code === "number" && code >= 400 && code < 500 ? code : 500;
}
