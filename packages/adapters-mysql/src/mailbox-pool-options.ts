/**
 * Settings for the mysql2 pool the mailbox adapters run on, to spread into `createPool`:
 * `createPool({ ...mailboxPoolOptions, host, user, password, database })`.
 *
 * - `connectTimeout` 5 s and keep-alive: a dead or unreachable server surfaces as
 *   `DEPENDENCY_UNAVAILABLE` within seconds (the adapters add acquire and query timeouts).
 * - `charset` utf8mb4: `CLOB_MSG` round-trips every character, 4-byte ones included.
 * - `supportBigNumbers`: `BIGINT` ids past 2^53 arrive as strings and are refused, not rounded.
 * - `dateStrings`: the adapters read `DATETIME`s as text anyway; this keeps any other reader of the
 *   pool from reinterpreting them in the process's zone.
 * - no `resetOnRelease`: it would drop the session settings (`mysql-session.ts`).
 * - no `trace`: mysql2's promise client otherwise captures a stack trace on every query, to put
 *   the call site into a possible error. The adapters name the operation in every error they
 *   raise, and the capture is a visible share of the ingress's CPU (docs/benchmarks.md, "Latency
 *   at half the maximum sustained rate").
 */
export const mailboxPoolOptions = {
  connectTimeout: 5_000,
  enableKeepAlive: true,
  keepAliveInitialDelay: 10_000,
  charset: "utf8mb4_unicode_ci",
  supportBigNumbers: true,
  bigNumberStrings: false,
  dateStrings: true,
  connectionLimit: 4,
  maxIdle: 4,
  idleTimeout: 60_000,
  waitForConnections: true,
  queueLimit: 0,
  trace: false,
} as const;
