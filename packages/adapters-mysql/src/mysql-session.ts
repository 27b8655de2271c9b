import { MsgxError } from "@msgx/core";
import type { MysqlConnectionLike, MysqlPoolLike } from "./mysql-driver.js";
import { toMsgxError } from "./mysql-error-map.js";

/** How long the adapter waits before it calls the mailbox unavailable. */
export interface MysqlTimeouts {
  /** Waiting for a pooled connection (the pool's own connect uses its `connectTimeout`). */
  readonly acquireTimeoutMs: number;
  /** One statement, client side; the connection is then destroyed. */
  readonly queryTimeoutMs: number;
  /** `innodb_lock_wait_timeout` of our sessions, in whole seconds. */
  readonly lockWaitTimeoutSec: number;
}

export const DEFAULT_MYSQL_TIMEOUTS: MysqlTimeouts = {
  acquireTimeoutMs: 10_000,
  queryTimeoutMs: 30_000,
  lockWaitTimeoutSec: 10,
};

/**
 * The session every connection of ours runs in, set once per physical connection:
 * - `time_zone = '+00:00'`: `NOW()`/`CURRENT_TIMESTAMP` defaults evaluate in UTC. (Values we
 *   write are built as UTC text by `mysql-datetime.ts` anyway.)
 * - strict `sql_mode`: a value that does not fit is an error, never a silent truncation (we check
 *   widths before writing; this is the second line).
 * - `READ COMMITTED`: reads see only committed rows, and locking reads take no gap locks in the
 *   upstream's table.
 * - a short `innodb_lock_wait_timeout`, so rows held by the upstream surface as an outage in
 *   seconds rather than after the server's default 50 s.
 * A pool with `resetOnRelease` would undo this after each use; nothing here depends on it for
 * correctness, but do not turn it on.
 */
export function sessionStatements(t: MysqlTimeouts): readonly string[] {
  return [
    "SET SESSION time_zone = '+00:00', " +
      "sql_mode = 'STRICT_ALL_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION', " +
      `autocommit = 1, innodb_lock_wait_timeout = ${Math.max(1, Math.ceil(t.lockWaitTimeoutSec))}`,
    "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED",
  ];
}

/** Runs statements on the connection held by one operation. Errors leave as `MsgxError`. */
export interface SqlRunner {
  query(sql: string, values?: readonly unknown[]): Promise<unknown>;
  /** `query` through the binary protocol when the driver has it (no client-side escaping). */
  execute(sql: string, values: readonly unknown[]): Promise<unknown>;
}

/**
 * The session each physical connection was set up with (weak: a dropped connection is
 * forgotten). Keyed by the statements, so adapters with other timeouts on the same pool re-apply.
 */
const prepared = new WeakMap<object, string>();

/**
 * Runs `fn` with statements on a connection of `pool` under `timeouts` (`withConnection`,
 * `withTransaction`, `withAutocommit`). `during` names the operation in error messages; an
 * aborted `signal` stops it before the next statement.
 */
export type MysqlSession = <T>(
  pool: MysqlPoolLike,
  timeouts: MysqlTimeouts,
  during: string,
  fn: (sql: SqlRunner) => Promise<T>,
  signal?: AbortSignal,
) => Promise<T>;

/**
 * Holds one pooled connection for `fn`. On success it goes back to the pool; after any error it
 * is destroyed (a timed-out or half-read connection must never be reused, and closing it rolls
 * back whatever it held).
 */
export const withConnection: MysqlSession = async (pool, timeouts, during, fn, signal) => {
  signal?.throwIfAborted();
  const conn = await acquire(pool, timeouts.acquireTimeoutMs, during);
  const call = async (binary: boolean, sql: string, values: readonly unknown[] | undefined) => {
    signal?.throwIfAborted();
    const options = { sql, values: values ? [...values] : [], timeout: timeouts.queryTimeoutMs };
    try {
      const [result] = await (binary && conn.execute ? conn.execute(options) : conn.query(options));
      return result;
    } catch (e) {
      throw toMsgxError(e, during);
    }
  };
  const run: SqlRunner = {
    query: (sql, values) => call(false, sql, values),
    execute: (sql, values) => call(true, sql, values),
  };
  try {
    const session = sessionStatements(timeouts);
    const signature = session.join(";");
    if (prepared.get(conn.connection) !== signature) {
      for (const sql of session) await run.query(sql);
      prepared.set(conn.connection, signature);
    }
    const result = await fn(run);
    conn.release();
    return result;
  } catch (e) {
    conn.destroy();
    throw e;
  }
};

/**
 * `fn` inside one transaction on one connection; resolves only after COMMIT succeeded. A lost
 * connection during COMMIT leaves as `COMMIT_UNKNOWN`; any other error rolls back (the connection
 * is destroyed, which the server treats as a rollback).
 */
export const withTransaction: MysqlSession = (pool, timeouts, during, fn, signal) =>
  withConnection(
    pool,
    timeouts,
    during,
    async (run) => {
      await run.query("START TRANSACTION");
      const result = await fn(run);
      try {
        await run.query("COMMIT");
      } catch (e) {
        throw asCommitOutcome(e, during);
      }
      return result;
    },
    signal,
  );

/**
 * `fn`'s one write in autocommit (the session's mode) on one connection: one round trip where
 * a transaction takes three. The statement is its own COMMIT, so a connection lost or timed out
 * while it ran, or during a read `fn` makes after it, leaves as `COMMIT_UNKNOWN` (it may have
 * committed); a failure before it was sent (no connection, the session set-up) stays
 * `DEPENDENCY_UNAVAILABLE`, and a refusal by the server (a constraint, a value that does not fit)
 * is definite, as in a transaction.
 */
export const withAutocommit: MysqlSession = (pool, timeouts, during, fn, signal) => {
  const statement = (run: SqlRunner) =>
    fn(run).catch((e: unknown) => {
      throw asCommitOutcome(e, during);
    });
  return withConnection(pool, timeouts, during, statement, signal);
};

/** An outage while a COMMIT was in flight: the outcome is unknown. */
function asCommitOutcome(e: unknown, during: string): unknown {
  return e instanceof MsgxError && e.kind === "DEPENDENCY_UNAVAILABLE" ? toMsgxError(e.cause, during, "commit") : e;
}

/** `pool.getConnection()` bounded in time: a pool whose connections all hang must not hang us. */
function acquire(pool: MysqlPoolLike, timeoutMs: number, during: string): Promise<MysqlConnectionLike> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => {
      settled = true;
      const e = Object.assign(new Error(`no connection within ${timeoutMs} ms`), { code: "MSGX_ACQUIRE_TIMEOUT" });
      reject(toMsgxError(e, during));
    }, timeoutMs);
    pool.getConnection().then(
      (conn) => {
        if (settled) return conn.release();
        settled = true;
        clearTimeout(timer);
        resolve(conn);
      },
      (e: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(toMsgxError(e, during));
      },
    );
  });
}
