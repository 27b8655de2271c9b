import { MsgxError, type ErrorKind } from "@msgx/core";

/** One row of the map: a driver `code`, a server `errno`, or a SQLSTATE class, and its kind. */
export interface MysqlErrorRule {
  readonly match: { readonly code: string } | { readonly errno: number } | { readonly sqlStateClass: string };
  readonly kind: ErrorKind;
  /** Overrides the kind's default `retriable`. */
  readonly retriable?: boolean;
  readonly why: string;
}

/**
 * What to do when a mailbox table is missing (the only tables this adapter reads and writes): said
 * by the ER_NO_SUCH_TABLE error and by the runner's start.
 */
export const MAILBOX_TABLES_HINT =
  "the mailbox tables belong to the upstream (its DDL); for development create them with `./msgx migrate --mailbox-dev` (the configured names) or packages/adapters-mysql/sql/mailbox.ddl.sql (the default names)";

const down = (why: string) => ({ kind: "DEPENDENCY_UNAVAILABLE", why }) as const;
const config = (why: string) => ({ kind: "CONFIG", retriable: true, why }) as const;

/**
 * Every driver error leaves this package as a `MsgxError` whose kind comes from this table,
 * looked up by `code` first (Node socket codes and mysql2's own), then by the server `errno`, then
 * by SQLSTATE class. Anything not listed is `INFRA`.
 *
 * `DEPENDENCY_UNAVAILABLE` means "the mailbox is not there right now": the pump pauses behind its
 * breaker and spends no attempt (SPEC §2.1). Schema and privilege errors are `CONFIG` but stay
 * retriable, so a grant or table fixed by an operator resumes work without a restart and nothing
 * goes DEAD in between.
 */
export const MYSQL_ERROR_RULES: readonly MysqlErrorRule[] = [
  // The socket: refused, reset, unreachable, timed out.
  { match: { code: "ECONNREFUSED" }, ...down("connection refused") },
  { match: { code: "ECONNRESET" }, ...down("connection reset") },
  { match: { code: "ECONNABORTED" }, ...down("connection aborted") },
  { match: { code: "ETIMEDOUT" }, ...down("connect timeout (connectTimeout)") },
  { match: { code: "EPIPE" }, ...down("socket closed while writing") },
  { match: { code: "EHOSTUNREACH" }, ...down("host unreachable") },
  { match: { code: "EHOSTDOWN" }, ...down("host down") },
  { match: { code: "ENETUNREACH" }, ...down("network unreachable") },
  { match: { code: "ENETDOWN" }, ...down("network down") },
  { match: { code: "ENOTFOUND" }, ...down("host name not resolved") },
  { match: { code: "EAI_AGAIN" }, ...down("DNS temporarily failing") },
  { match: { code: "EADDRNOTAVAIL" }, ...down("no local address") },
  // mysql2's client-side codes.
  { match: { code: "PROTOCOL_CONNECTION_LOST" }, ...down("server closed the connection") },
  { match: { code: "PROTOCOL_SEQUENCE_TIMEOUT" }, ...down("query timeout (client side)") },
  { match: { code: "PROTOCOL_ENQUEUE_AFTER_FATAL_ERROR" }, ...down("connection already failed") },
  { match: { code: "PROTOCOL_ENQUEUE_AFTER_QUIT" }, ...down("connection already closed") },
  { match: { code: "MSGX_ACQUIRE_TIMEOUT" }, ...down("no pooled connection within acquireTimeoutMs") },
  { match: { code: "MSGX_POOL_UNAVAILABLE" }, ...down("pool closed, exhausted or its queue full") },
  // Server errnos: the server cannot serve us right now.
  { match: { errno: 1040 }, ...down("ER_CON_COUNT_ERROR: too many connections") },
  { match: { errno: 1041 }, ...down("ER_OUT_OF_RESOURCES") },
  { match: { errno: 1053 }, ...down("ER_SERVER_SHUTDOWN: shutdown in progress") },
  { match: { errno: 1077 }, ...down("ER_NORMAL_SHUTDOWN") },
  { match: { errno: 1129 }, ...down("ER_HOST_IS_BLOCKED: too many connection errors") },
  { match: { errno: 1152 }, ...down("ER_ABORTING_CONNECTION") },
  { match: { errno: 1158 }, ...down("ER_NET_READ_ERROR") },
  { match: { errno: 1159 }, ...down("ER_NET_READ_INTERRUPTED") },
  { match: { errno: 1160 }, ...down("ER_NET_ERROR_ON_WRITE") },
  { match: { errno: 1161 }, ...down("ER_NET_WRITE_INTERRUPTED") },
  { match: { errno: 1203 }, ...down("ER_TOO_MANY_USER_CONNECTIONS") },
  { match: { errno: 1205 }, ...down("ER_LOCK_WAIT_TIMEOUT: the upstream holds the rows") },
  { match: { errno: 1290 }, ...down("ER_OPTION_PREVENTS_STATEMENT: read-only (failover)") },
  { match: { errno: 1317 }, ...down("ER_QUERY_INTERRUPTED: KILL QUERY") },
  { match: { errno: 1836 }, ...down("ER_READ_ONLY_MODE") },
  { match: { errno: 1927 }, ...down("ER_CONNECTION_KILLED (MariaDB): KILL CONNECTION") },
  { match: { errno: 1969 }, ...down("ER_STATEMENT_TIMEOUT (MariaDB max_statement_time)") },
  { match: { errno: 2002 }, ...down("CR_CONNECTION_ERROR") },
  { match: { errno: 2003 }, ...down("CR_CONN_HOST_ERROR") },
  { match: { errno: 2006 }, ...down("CR_SERVER_GONE_ERROR") },
  { match: { errno: 2013 }, ...down("CR_SERVER_LOST") },
  { match: { errno: 3024 }, ...down("ER_QUERY_TIMEOUT (MySQL max_execution_time)") },
  { match: { errno: 4031 }, ...down("ER_CLIENT_INTERACTION_TIMEOUT (MySQL wait_timeout)") },
  // Safe to retry the same work at once.
  { match: { errno: 1213 }, kind: "CONFLICT", why: "ER_LOCK_DEADLOCK: transaction rolled back" },
  // Operator-fixable: wrong credentials, grants, schema.
  { match: { errno: 1044 }, ...config("ER_DBACCESS_DENIED_ERROR") },
  { match: { errno: 1045 }, ...config("ER_ACCESS_DENIED_ERROR") },
  { match: { errno: 1049 }, ...config("ER_BAD_DB_ERROR: unknown database") },
  { match: { errno: 1054 }, ...config("ER_BAD_FIELD_ERROR: unknown column") },
  { match: { errno: 1142 }, ...config("ER_TABLEACCESS_DENIED_ERROR: missing grant") },
  { match: { errno: 1143 }, ...config("ER_COLUMNACCESS_DENIED_ERROR: missing grant") },
  { match: { errno: 1146 }, ...config(`ER_NO_SUCH_TABLE: ${MAILBOX_TABLES_HINT}`) },
  // SQLSTATE classes, for errnos not listed above.
  { match: { sqlStateClass: "08" }, ...down("SQLSTATE 08: connection exception") },
  { match: { sqlStateClass: "40" }, kind: "CONFLICT", why: "SQLSTATE 40: transaction rollback" },
];

/** mysql2 errors that carry no code, only a message. */
const POOL_MESSAGES = ["Pool is closed.", "No connections available.", "Queue limit reached."];

const byCode = new Map<string, MysqlErrorRule>();
const byErrno = new Map<number, MysqlErrorRule>();
const byStateClass = new Map<string, MysqlErrorRule>();
for (const rule of MYSQL_ERROR_RULES) {
  const m = rule.match;
  if ("code" in m) byCode.set(m.code, rule);
  else if ("errno" in m) byErrno.set(m.errno, rule);
  else byStateClass.set(m.sqlStateClass, rule);
}

interface DriverErrorShape {
  readonly code?: unknown;
  readonly errno?: unknown;
  readonly sqlState?: unknown;
  readonly fatal?: unknown;
  readonly message?: unknown;
}

/** The rule for a driver error, or undefined (then it is `INFRA`). */
export function findMysqlErrorRule(e: unknown): MysqlErrorRule | undefined {
  if (typeof e !== "object" || e === null) return undefined;
  const err = e as DriverErrorShape;
  const code = typeof err.code === "string" ? err.code : undefined;
  const message = typeof err.message === "string" ? err.message : "";
  const viaCode = code === undefined ? undefined : byCode.get(code);
  if (viaCode) return viaCode;
  if (typeof err.errno === "number" && err.errno > 0) {
    const viaErrno = byErrno.get(err.errno);
    if (viaErrno) return viaErrno;
  }
  if (typeof err.sqlState === "string") {
    const viaState = byStateClass.get(err.sqlState.slice(0, 2));
    if (viaState) return viaState;
  }
  if (POOL_MESSAGES.includes(message)) return byCode.get("MSGX_POOL_UNAVAILABLE");
  // mysql2 marks every error that kills the connection `fatal` ("closed state" and the like).
  if (err.fatal === true) return { match: { code: "fatal" }, kind: "DEPENDENCY_UNAVAILABLE", why: "fatal connection error" };
  return undefined;
}

/**
 * Maps anything a driver call threw to a `MsgxError` (a `MsgxError` passes through unchanged).
 * `during` names the operation for the message. With `phase: "commit"`, an outage while the
 * COMMIT was in flight becomes `COMMIT_UNKNOWN`: the transaction may or may not have committed.
 */
export function toMsgxError(e: unknown, during: string, phase: "statement" | "commit" = "statement"): MsgxError {
  if (e instanceof MsgxError) return e;
  const rule = findMysqlErrorRule(e);
  const detail = describeDriverError(e);
  if (rule === undefined) return new MsgxError("INFRA", `${during}: ${detail}`, { cause: e });
  const kind: ErrorKind = phase === "commit" && rule.kind === "DEPENDENCY_UNAVAILABLE" ? "COMMIT_UNKNOWN" : rule.kind;
  const options = rule.retriable === undefined ? { cause: e } : { cause: e, retriable: rule.retriable };
  return new MsgxError(kind, `${during}: ${detail} (${rule.why})`, options);
}

function describeDriverError(e: unknown): string {
  if (typeof e !== "object" || e === null) return String(e);
  const err = e as DriverErrorShape;
  const tags = [err.code, err.errno].filter((t) => typeof t === "string" || typeof t === "number");
  const message = typeof err.message === "string" && err.message !== "" ? err.message : String(e);
  return tags.length > 0 ? `${message} [${tags.join(" ")}]` : message;
}
