import { MsgxError } from "@msgx/core";

const OUTAGE_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "57P01", "57P02", "57P03", "53300"]);

/**
 * Maps a driver error of the embedded mailbox to a `MsgxError`: connection trouble is an outage;
 * anything else is INFRA. (The pipeline store has its own, fuller SQLSTATE table.)
 */
export function mapPgError(e: unknown, what: string): MsgxError {
  if (e instanceof MsgxError) return e;
  const code = String((e as { code?: unknown })?.code ?? "");
  const message = e instanceof Error ? e.message : String(e);
  if (OUTAGE_CODES.has(code) || code.startsWith("08") || /terminat|closed|not open|connection/i.test(message)) {
    return new MsgxError("DEPENDENCY_UNAVAILABLE", `${what}: ${message}`, { cause: e });
  }
  return new MsgxError("INFRA", `${what}: ${message}`, { cause: e, retriable: false });
}
