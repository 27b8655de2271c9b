import { MsgxError } from "@msgx/core";
import { pgHostClient, type HostableClientClass } from "./pg-host-client.js";
import { parsePgHosts } from "./pg-hosts.js";

/** Connection settings msgx wants on every pooled PostgreSQL connection. */
export interface PgConnectionOptions {
  /**
   * A node-postgres connection string, or libpq's multi-host URL
   * (`postgres://u@h1:5433,h2:5434/db?target_session_attrs=read-write`, see `parsePgHosts`), which
   * needs the driver passed to {@link pgPoolConfig}.
   */
  readonly connectionString?: string;
  /** The schema of the msgx tables, first on the search path. Default `public`. */
  readonly schema?: string;
  /** Pool size. Default 10. */
  readonly max?: number;
  /** Give up connecting after this long (pg-pool). Default 5 s. */
  readonly connectTimeoutMs?: number;
  /** Server-side `statement_timeout`. Default 30 s. */
  readonly statementTimeoutMs?: number;
  /** Server-side `lock_timeout`. Default 30 s. */
  readonly lockTimeoutMs?: number;
  /** Server-side `idle_in_transaction_session_timeout`: a stuck client cannot hold the pipeline lock forever. Default 60 s. */
  readonly idleInTransactionTimeoutMs?: number;
  /** Client-side `query_timeout`: a half-open socket fails instead of hanging. Default 60 s. */
  readonly queryTimeoutMs?: number;
  readonly applicationName?: string;
  /**
   * Run the statements msgx repeats as named (prepared) statements, parsed and planned once per
   * connection (`HotStatements`). Default true; false behind a pooler that moves a session's
   * statements between server connections (PgBouncer in transaction mode before 1.21, or with
   * `max_prepared_statements` 0).
   */
  readonly preparedStatements?: boolean;
}

/**
 * A `pg.Pool` / `pg.Client` config with msgx's timeouts, keep-alive and search path.
 *
 * Given a multi-host URL (or one with `target_session_attrs`), the config carries `Client`: a
 * subclass of `driver.Client` that connects each new connection to a host that qualifies (see
 * `pgHostClient`); `pg.Pool` uses it as it is, and a lone client is `new (config["Client"] ?? pg.Client)(config)`.
 * Such a URL without `driver` is a CONFIG error.
 */
export function pgPoolConfig(options: PgConnectionOptions = {}, driver?: { readonly Client: HostableClientClass }): Record<string, unknown> {
  const schema = options.schema ?? "public";
  const connectTimeoutMs = options.connectTimeoutMs ?? 5_000;
  const hostList = options.connectionString === undefined ? undefined : parsePgHosts(options.connectionString);
  if (hostList !== undefined && driver === undefined) {
    throw new MsgxError("CONFIG", `PostgreSQL URL ${hostList.redacted}: a host list or target_session_attrs needs pgPoolConfig(options, pg) to choose a host per connection`, { retriable: false });
  }
  return {
    ...(options.connectionString === undefined ? {} : { connectionString: hostList?.urlFor(hostList.hosts[0]!) ?? options.connectionString }),
    ...(hostList === undefined || driver === undefined ? {} : { Client: pgHostClient(driver.Client, hostList, connectTimeoutMs) }),
    max: options.max ?? 10,
    connectionTimeoutMillis: connectTimeoutMs,
    statement_timeout: options.statementTimeoutMs ?? 30_000,
    lock_timeout: options.lockTimeoutMs ?? 30_000,
    idle_in_transaction_session_timeout: options.idleInTransactionTimeoutMs ?? 60_000,
    query_timeout: options.queryTimeoutMs ?? 60_000,
    keepAlive: true,
    application_name: options.applicationName ?? "msgx",
    options: `-c search_path=${quoteSearchPath(schema)}`,
  };
}

/** A schema name as a search_path value in a libpq `options` string (spaces would need escaping). */
function quoteSearchPath(schema: string): string {
  if (!/^[a-z_][a-z0-9_$]*$/.test(schema)) throw new Error(`schema name must be a lower-case identifier: ${schema}`);
  return schema;
}

/** The events of a `pg.Pool` that {@link guardPool} listens to (structural, no import of pg). */
export interface GuardablePool {
  on(event: "error", listener: (e: Error) => void): unknown;
  on(event: "connect", listener: (client: { on(event: "error", listener: (e: Error) => void): unknown }) => void): unknown;
}

/**
 * Keeps a lost connection from ending the process. node-postgres emits `error` on an idle pooled
 * client (pg-pool forwards it to the pool) and on a checked-out client that is between queries —
 * e.g. a backend terminated while its transaction waits on application code. Unheard, either is
 * an uncaught exception. With these listeners the error is dropped there and surfaces where it
 * belongs: the next query on that client fails ("not queryable", mapped to
 * DEPENDENCY_UNAVAILABLE), and the pool discards the client on release.
 */
export function guardPool<P extends GuardablePool>(pool: P): P {
  pool.on("error", () => undefined);
  pool.on("connect", (client) => {
    client.on("error", () => undefined);
  });
  return pool;
}
