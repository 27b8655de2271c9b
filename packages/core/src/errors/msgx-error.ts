import type { ErrorClass } from "./error-class.js";

/** What went wrong, beyond the per-message classes: used by adapters at their boundary. */
export type ErrorKind =
  | ErrorClass
  /** A dependency (database, mailbox, broker) is unreachable or timed out: pause, spend no attempt. */
  | "DEPENDENCY_UNAVAILABLE"
  /** A transaction may or may not have committed (connection lost during COMMIT). */
  | "COMMIT_UNKNOWN"
  /** A stale leader tried to commit: its fencing epoch is no longer current. */
  | "FENCED"
  /** Serialization failure or deadlock: safe to retry the same work at once. */
  | "CONFLICT"
  /** Configuration refused at start (unsafe producer settings, stubs in production, bad values). */
  | "CONFIG";

export interface MsgxErrorOptions {
  readonly cause?: unknown;
  /** Overrides the default of the kind. */
  readonly retriable?: boolean;
}

const RETRIABLE_BY_DEFAULT: ReadonlySet<ErrorKind> = new Set<ErrorKind>([
  "CODEC_ERROR",
  "UNSUPPORTED",
  "INFRA",
  "DEPENDENCY_UNAVAILABLE",
  "COMMIT_UNKNOWN",
  "CONFLICT",
]);

/**
 * The one error type that crosses a port. Adapters map driver errors into it at their boundary
 * (SQLSTATE, MySQL errno, kafkajs `retriable`), so no driver error type leaks into the core.
 */
export class MsgxError extends Error {
  override readonly name = "MsgxError";
  readonly kind: ErrorKind;
  readonly retriable: boolean;

  constructor(kind: ErrorKind, message: string, options: MsgxErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.kind = kind;
    this.retriable = options.retriable ?? RETRIABLE_BY_DEFAULT.has(kind);
  }
}

export const isMsgxError = (e: unknown): e is MsgxError => e instanceof MsgxError;

/**
 * True when the error means "a dependency is not there right now" rather than "this message is
 * bad": the caller pauses behind its breaker and spends no attempt. An unknown commit outcome is
 * treated the same way: the next step re-reads the store and finds out what happened.
 */
export const isOutage = (e: unknown): boolean =>
  isMsgxError(e) && (e.kind === "DEPENDENCY_UNAVAILABLE" || e.kind === "COMMIT_UNKNOWN");

export const dependencyUnavailable = (what: string, cause?: unknown): MsgxError =>
  new MsgxError("DEPENDENCY_UNAVAILABLE", `${what} is unavailable`, { cause });

export const errorMessage = (e: unknown): string => (e instanceof Error ? e.message : String(e));
