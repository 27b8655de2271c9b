import { CompiledQuery, type DatabaseConnection, type Driver, type QueryResult, type TransactionSettings } from "kysely";
import type { PGliteLike } from "./pglite-types.js";

export interface PGliteDialectConfig {
  /** A PGlite instance, or a function making one (called once, on first use). */
  readonly pglite: PGliteLike | (() => PGliteLike | Promise<PGliteLike>);
  /** Called once, after the instance is ready. */
  readonly onCreateConnection?: (connection: DatabaseConnection) => Promise<void>;
}

/**
 * PGlite is one PostgreSQL backend in this process: one session, so one connection. Kysely may
 * ask for several (a transaction, and a query beside it); they are handed out one at a time, so
 * a transaction owns the session from BEGIN to COMMIT and nothing else interleaves with it.
 * (kysely 0.29's PGliteDialect shares the connection instead; the queue here keeps a concurrent
 * query out of an open transaction.) A query issued outside a transaction while that transaction
 * waits on it would deadlock, exactly as with a pool of one.
 */
export class PGliteDriver implements Driver {
  readonly #config: PGliteDialectConfig;
  #pglite: PGliteLike | undefined;
  #connection: PGliteConnection | undefined;
  #queue: Promise<void> = Promise.resolve();
  #release: (() => void) | undefined;

  constructor(config: PGliteDialectConfig) {
    this.#config = config;
  }

  async init(): Promise<void> {
    const pglite = typeof this.#config.pglite === "function" ? await this.#config.pglite() : this.#config.pglite;
    if (pglite.closed) throw new Error("PGlite instance is already closed");
    if (!pglite.ready) await pglite.waitReady;
    this.#pglite = pglite;
    this.#connection = new PGliteConnection(pglite);
    await this.#config.onCreateConnection?.(this.#connection);
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const previous = this.#queue;
    let release!: () => void;
    this.#queue = new Promise<void>((resolve) => (release = resolve));
    await previous;
    this.#release = release;
    return this.#connection!;
  }

  async releaseConnection(): Promise<void> {
    const release = this.#release;
    this.#release = undefined;
    release?.();
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    let statement = "BEGIN";
    if (settings.isolationLevel) statement += ` ISOLATION LEVEL ${settings.isolationLevel.toUpperCase()}`;
    if (settings.accessMode) statement += ` ${settings.accessMode.toUpperCase()}`;
    await connection.executeQuery(CompiledQuery.raw(statement));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("COMMIT"));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("ROLLBACK"));
  }

  async savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`SAVEPOINT ${quoteIdent(name)}`));
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`ROLLBACK TO SAVEPOINT ${quoteIdent(name)}`));
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`RELEASE SAVEPOINT ${quoteIdent(name)}`));
  }

  async destroy(): Promise<void> {
    if (this.#pglite !== undefined && !this.#pglite.closed) await this.#pglite.close();
  }
}

const quoteIdent = (name: string): string => `"${name.replace(/"/g, '""')}"`;

class PGliteConnection implements DatabaseConnection {
  readonly #pglite: PGliteLike;

  constructor(pglite: PGliteLike) {
    this.#pglite = pglite;
  }

  /**
   * A query without parameters goes by the simple protocol (`exec`), as node-postgres sends it,
   * so it may hold several statements (a BEGIN with what follows it); the last one's result is
   * given. Any other goes by the extended protocol (`query`): one statement.
   */
  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    const { rows, affectedRows } =
      compiledQuery.parameters.length === 0
        ? ((await this.#pglite.exec(compiledQuery.sql, { rowMode: "object" })).at(-1) ?? { rows: [] as R[], affectedRows: undefined })
        : await this.#pglite.query<R>(compiledQuery.sql, [...compiledQuery.parameters], { rowMode: "object" });
    return { rows: (rows as R[] | undefined) ?? [], ...(affectedRows === undefined ? {} : { numAffectedRows: BigInt(affectedRows) }) };
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error("PGlite does not stream query results");
  }
}
