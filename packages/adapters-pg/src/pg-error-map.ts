import { MsgxError, isMsgxError, type ErrorKind } from "@msgx/core";
import { STALE_FENCE_SQLSTATE } from "./migrations/0021-pipeline-enter.js";
import { BOUND_KEYS_SQLSTATE, NOT_AT_HEAD_SQLSTATE, STALE_GENERATION_SQLSTATE } from "./migrations/0032-state-generation.js";

/**
 * How a PostgreSQL (node-postgres or PGlite) error crosses the port: a table keyed by SQLSTATE,
 * then by SQLSTATE class, then by Node socket code, then by the messages node-postgres and PGlite
 * raise without a code. Anything else is INFRA: a fault of the work at hand, retried with backoff.
 *
 * DEPENDENCY_UNAVAILABLE pauses the pump and spends no attempt; CONFLICT is retried at once by
 * the store; INFRA fails the transaction (the pump then retries a smaller run).
 */
export interface PgErrorRule {
  readonly kind: ErrorKind;
  readonly retriable?: boolean;
  readonly why: string;
}

/** Exact SQLSTATEs. Checked before the class table. */
export const SQLSTATE_TABLE: Readonly<Record<string, PgErrorRule>> = {
  [STALE_FENCE_SQLSTATE]: { kind: "FENCED", retriable: false, why: "stale leadership fence (msgx_pipeline_enter)" },
  // commitRun maps these two to StaleRunError (with the generation or the keys) before this table.
  [STALE_GENERATION_SQLSTATE]: { kind: "CONFLICT", retriable: false, why: "stale state generation (msgx_commit_enter)" },
  [BOUND_KEYS_SQLSTATE]: { kind: "CONFLICT", retriable: false, why: "identities bound to other messages (msgx_commit_enter)" },
  [NOT_AT_HEAD_SQLSTATE]: { kind: "CONFLICT", retriable: false, why: "the run is not the unfinished records from the head (msgx_commit_run)" },
  "40001": { kind: "CONFLICT", why: "serialization_failure" },
  "40P01": { kind: "CONFLICT", why: "deadlock_detected" },
  "57014": { kind: "DEPENDENCY_UNAVAILABLE", why: "query_canceled (statement_timeout)" },
  "57P01": { kind: "DEPENDENCY_UNAVAILABLE", why: "admin_shutdown (backend terminated)" },
  "57P02": { kind: "DEPENDENCY_UNAVAILABLE", why: "crash_shutdown" },
  "57P03": { kind: "DEPENDENCY_UNAVAILABLE", why: "cannot_connect_now (starting up / recovery)" },
  "57P04": { kind: "DEPENDENCY_UNAVAILABLE", why: "database_dropped" },
  "55P03": { kind: "DEPENDENCY_UNAVAILABLE", why: "lock_not_available (lock_timeout)" },
  "25P03": { kind: "DEPENDENCY_UNAVAILABLE", why: "idle_in_transaction_session_timeout" },
  "25006": { kind: "DEPENDENCY_UNAVAILABLE", why: "read_only_sql_transaction (a standby, or a primary being switched over: failover)" },
  "23505": { kind: "INFRA", why: "unique_violation (e.g. an identity bound twice)" },
  "21000": { kind: "INFRA", why: "cardinality_violation (a row affected twice in one statement)" },
  "42P01": { kind: "CONFIG", retriable: false, why: "undefined_table: schema not migrated or wrong search_path" },
  "42883": { kind: "CONFIG", retriable: false, why: "undefined_function: schema not migrated or wrong search_path" },
  "3D000": { kind: "CONFIG", retriable: false, why: "invalid_catalog_name: no such database" },
  "28000": { kind: "CONFIG", retriable: false, why: "invalid_authorization_specification" },
  "28P01": { kind: "CONFIG", retriable: false, why: "invalid_password" },
  "26000": {
    kind: "CONFIG",
    retriable: false,
    why: "invalid_sql_statement_name: a prepared statement is gone; a pooler between msgx and PostgreSQL moves statements between server connections (set preparedStatements false: runner pg.preparedStatements)",
  },
};

/** SQLSTATE classes (first two characters). */
export const SQLSTATE_CLASS_TABLE: Readonly<Record<string, PgErrorRule>> = {
  "08": { kind: "DEPENDENCY_UNAVAILABLE", why: "connection exception" },
  "53": { kind: "DEPENDENCY_UNAVAILABLE", why: "insufficient resources (disk, memory, connections)" },
  "58": { kind: "DEPENDENCY_UNAVAILABLE", why: "system error (I/O)" },
  "57": { kind: "DEPENDENCY_UNAVAILABLE", why: "operator intervention (shutdown, recovery, session timeout)" },
  "40": { kind: "CONFLICT", why: "transaction rollback" },
  "22": { kind: "INFRA", why: "data exception" },
  "23": { kind: "INFRA", why: "integrity constraint violation" },
  "25": { kind: "INFRA", why: "invalid transaction state" },
  "42": { kind: "INFRA", why: "syntax error or access rule violation" },
  P0: { kind: "INFRA", why: "PL/pgSQL raise (e.g. a trigger refused the row)" },
  XX: { kind: "INFRA", why: "internal error" },
};

/** Node socket and DNS error codes. */
export const NODE_CODE_TABLE: Readonly<Record<string, PgErrorRule>> = Object.fromEntries(
  ["ECONNREFUSED", "ECONNRESET", "ECONNABORTED", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN"].map(
    (code) => [code, { kind: "DEPENDENCY_UNAVAILABLE", why: `socket: ${code}` } satisfies PgErrorRule],
  ),
);

/** Code-less errors of node-postgres, pg-pool and PGlite, by message. */
export const MESSAGE_TABLE: readonly (readonly [RegExp, PgErrorRule])[] = [
  [/Connection terminated/i, { kind: "DEPENDENCY_UNAVAILABLE", why: "connection terminated" }],
  [/the database system is (shutting down|in recovery mode|starting up|not (yet )?accepting connections)/i, { kind: "DEPENDENCY_UNAVAILABLE", why: "server shutting down or in recovery" }],
  [/not queryable/i, { kind: "DEPENDENCY_UNAVAILABLE", why: "client lost its connection" }],
  [/timeout exceeded when trying to connect|connection timeout/i, { kind: "DEPENDENCY_UNAVAILABLE", why: "connect timeout" }],
  [/Query read timeout/i, { kind: "DEPENDENCY_UNAVAILABLE", why: "query_timeout" }],
  [/Cannot use a pool after calling end/i, { kind: "DEPENDENCY_UNAVAILABLE", why: "pool closed (shutting down)" }],
  [/PGlite is closed|PGlite instance is already closed/i, { kind: "DEPENDENCY_UNAVAILABLE", why: "PGlite closed" }],
  [/driver has already been destroyed/i, { kind: "DEPENDENCY_UNAVAILABLE", why: "kysely driver destroyed" }],
];

const FALLBACK: PgErrorRule = { kind: "INFRA", why: "unclassified database error" };

/** The rule for a driver error. */
export function classifyPgError(e: unknown): PgErrorRule {
  const code = typeof (e as { code?: unknown })?.code === "string" ? (e as { code: string }).code : undefined;
  if (code !== undefined) {
    const rule = SQLSTATE_TABLE[code] ?? (code.length === 5 ? SQLSTATE_CLASS_TABLE[code.slice(0, 2)] : undefined) ?? NODE_CODE_TABLE[code];
    if (rule) return rule;
  }
  const message = e instanceof Error ? e.message : String(e);
  for (const [pattern, rule] of MESSAGE_TABLE) if (pattern.test(message)) return rule;
  // node-postgres reports a socket error with the Node code on the error itself or on `cause`.
  const cause = (e as { cause?: unknown })?.cause;
  if (cause !== undefined && cause !== e) {
    const inner = classifyPgError(cause);
    if (inner !== FALLBACK) return inner;
  }
  return FALLBACK;
}

/** Where the error happened: an outage during COMMIT leaves the outcome unknown. */
export type PgPhase = "statement" | "commit";

/** Maps a driver error to a `MsgxError` (a `MsgxError` passes through unchanged). */
export function mapPgError(e: unknown, what: string, phase: PgPhase = "statement"): MsgxError {
  if (isMsgxError(e)) return e;
  const rule = classifyPgError(e);
  const code = (e as { code?: unknown })?.code;
  const detail = `${e instanceof Error ? e.message : String(e)}${typeof code === "string" ? ` [${code}]` : ""}`;
  if (phase === "commit" && rule.kind === "DEPENDENCY_UNAVAILABLE") {
    return new MsgxError("COMMIT_UNKNOWN", `${what}: connection lost during COMMIT, outcome unknown: ${detail}`, { cause: e });
  }
  const options = rule.retriable === undefined ? { cause: e } : { cause: e, retriable: rule.retriable };
  return new MsgxError(rule.kind, `${what}: ${rule.why}: ${detail}`, options);
}

/** Runs `fn`, mapping whatever the driver throws. */
export async function pgCall<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw mapPgError(e, what);
  }
}
