import { createHash } from "node:crypto";

/** SQLSTATE 0A000 with this text: a prepared statement whose result columns changed under it (DDL meanwhile). */
const RESULT_TYPE_CHANGED = "cached plan must not change result type";

/**
 * Which statement texts a pool runs often enough to prepare. node-postgres sends an unnamed
 * statement unless asked otherwise, and PostgreSQL parses and plans an unnamed statement on every
 * call: for the intake's enqueue that is two thirds of its server time (planning 0.155 ms,
 * execution 0.076 ms; docs/benchmarks.md "2026-12-07 (6)"). A named statement is parsed once per
 * connection, and after five executions PostgreSQL may keep a generic plan.
 *
 * A text is named from its `after`-th use on, at most `maxNames` texts per pool (each is held by
 * every connection that ran it, on the server and in the driver): the statements msgx runs on
 * every step — a few dozen — are named within their first few calls, and a text that varies with
 * its input (a list of values spelled out) never uses up the names. A text whose prepared plan
 * PostgreSQL refuses because a table's columns changed under it is never named again.
 */
export class HotStatements {
  readonly #maxNames: number;
  readonly #after: number;
  readonly #uses = new Map<string, number>();
  readonly #names = new Map<string, string>();
  readonly #refused = new Set<string>();

  constructor(options: { readonly maxNames?: number; readonly after?: number } = {}) {
    this.#maxNames = options.maxNames ?? 200;
    this.#after = options.after ?? 2;
  }

  /** The name to run `text` under, or undefined to run it unnamed; counts the use. */
  nameOf(text: string): string | undefined {
    const named = this.#names.get(text);
    if (named !== undefined) return named;
    if (this.#names.size >= this.#maxNames || this.#refused.has(text)) return undefined;
    const uses = (this.#uses.get(text) ?? 0) + 1;
    if (uses < this.#after) {
      // Bounded: texts seen once and never again are forgotten in bulk.
      if (this.#uses.size >= 10 * this.#maxNames) this.#uses.clear();
      this.#uses.set(text, uses);
      return undefined;
    }
    this.#uses.delete(text);
    const name = `msgx_${createHash("sha1").update(text).digest("hex").slice(0, 24)}`;
    this.#names.set(text, name);
    return name;
  }

  /** `text` failed as a named statement in a way running it unnamed would not: never name it again. */
  refuse(text: string): void {
    this.#names.delete(text);
    this.#refused.add(text);
  }

  /** How many texts are named (for tests). */
  get size(): number {
    return this.#names.size;
  }
}

/** The part of a node-postgres client this wraps (structural: no import of pg). */
interface QueryableClient {
  query: (...args: never[]) => unknown;
}

/** The pool events {@link prepareHotStatements} listens to. */
export interface PreparablePool {
  on(event: "connect", listener: (client: QueryableClient) => void): unknown;
}

/**
 * Runs the hot statements of every connection `pool` opens as named (prepared) statements:
 * `client.query(text, values)` with at least one value — what Kysely sends — becomes
 * `client.query({ name, text, values })` once `hot` names the text. A query without values keeps
 * the simple protocol (several statements in one message stay possible), and every other form of
 * call passes through. Behind a pooler that hands a session's statements to other sessions
 * (PgBouncer in transaction mode before 1.21), turn it off (`PgConnectionOptions.preparedStatements`).
 */
export function prepareHotStatements<P extends PreparablePool>(pool: P, hot: HotStatements = new HotStatements()): P {
  pool.on("connect", (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    client.query = ((...args: unknown[]) => {
      const [text, values, callback] = args;
      if (typeof text !== "string" || !Array.isArray(values) || values.length === 0 || callback !== undefined) return query(...args);
      const name = hot.nameOf(text);
      if (name === undefined) return query(text, values);
      return (query({ name, text, values }) as Promise<unknown>).catch((e: unknown) => {
        if (e instanceof Error && e.message.includes(RESULT_TYPE_CHANGED)) hot.refuse(text);
        throw e;
      });
    }) as QueryableClient["query"];
  });
  return pool;
}
