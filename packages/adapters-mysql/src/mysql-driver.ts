/**
 * What this package needs from a mysql2/promise pool, typed structurally so the adapter has no
 * runtime dependency on the driver (STYLE.md §1). A `mysql2/promise` `Pool` satisfies it as is.
 */

/** The options object form of `query` (text protocol: `?` placeholders, arrays expand to lists). */
export interface MysqlQueryOptions {
  readonly sql: string;
  readonly values?: unknown[];
  /** Client-side timeout in ms; the connection must be discarded after it fires. */
  readonly timeout?: number;
}

/** One pooled connection, held for the length of one operation. */
export interface MysqlConnectionLike {
  /** Resolves `[rows, fields]` for a SELECT, `[ResultSetHeader, undefined]` for a write. */
  query(options: MysqlQueryOptions): Promise<readonly [unknown, unknown]>;
  /**
   * The same through the binary protocol (a server-side prepared statement, cached per
   * connection): parameters travel as length-prefixed bytes, with no client-side escaping. The
   * ingress writes the raw XML with it, since escaping a text of megabytes blocks the event loop
   * (docs/benchmarks.md "Figures behind choices in the code"). Optional: a pool without it gets `query`.
   */
  execute?(options: MysqlQueryOptions): Promise<readonly [unknown, unknown]>;
  /** Gives the connection back to the pool. */
  release(): void;
  /** Closes the socket and drops the connection from the pool (after a timeout or a lost link). */
  destroy(): void;
  /**
   * The physical connection under this handle; stable across acquisitions, so session settings
   * are applied once per physical connection.
   */
  readonly connection: object;
}

/** The pool: the only thing the adapters are constructed with. */
export interface MysqlPoolLike {
  getConnection(): Promise<MysqlConnectionLike>;
}

/** `affectedRows`/`insertId` of a write (mysql2 `ResultSetHeader`). */
export interface MysqlWriteResult {
  readonly affectedRows: number;
  readonly insertId: number | string | bigint;
}
