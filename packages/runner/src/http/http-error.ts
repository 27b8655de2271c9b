import { errorMessage, isMsgxError } from "@msgx/core";
import type { FastifyError } from "fastify";
import { BodyEncodingError } from "./body-text.js";

/** A refusal the handler chose: answered with `status` and `{ error, message }`. */
export class HttpError extends Error {
  override readonly name = "HttpError";
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The JSON body of every error answer: a short class and a sentence; never a stack trace. */
export interface ErrorBody {
  readonly error: string;
  readonly message: string;
}

const REASONS: Readonly<Record<number, string>> = {
  400: "bad request",
  401: "unauthorized",
  404: "not found",
  405: "method not allowed",
  408: "request timeout",
  409: "conflict",
  413: "payload too large",
  415: "unsupported media type",
  431: "request header fields too large",
  500: "internal error",
  503: "unavailable",
};

/** `status` and body for anything a route threw: the client's mistakes are 4xx, only our faults 5xx. */
export function errorAnswer(e: unknown): { status: number; body: ErrorBody } {
  const status = statusOf(e);
  return { status, body: { error: REASONS[status] ?? (status < 500 ? "bad request" : "internal error"), message: errorMessage(e) } };
}

function statusOf(e: unknown): number {
  if (e instanceof HttpError || e instanceof BodyEncodingError) return e.status;
  if (isMsgxError(e)) return e.kind === "DEPENDENCY_UNAVAILABLE" ? 503 : 500;
  // fastify's own refusals (validation, body parsing, body limit, bad URL) carry a 4xx statusCode.
  const code = (e as Partial<FastifyError> | undefined)?.statusCode;
  return typeof code === "number" && code >= 400 && code < 500 ? code : 500;
}
