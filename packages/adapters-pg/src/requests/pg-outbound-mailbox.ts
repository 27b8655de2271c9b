import { sql, type Kysely } from "kysely";
import type { MsgxDatabase } from "../rows/tables.js";
import type { OutboundMailbox, OutboundQuery, OutboundRow } from "@msgx/core";
import { mapPgError } from "../pg-error-map.js";
import { toMs, toMsOrNull, toNumber } from "../rows/values.js";

interface Row {
  readonly id: unknown;
  readonly routingid: string;
  readonly clob_msg: string;
  readonly date_inserted: unknown;
  readonly date_sent: unknown;
  readonly ack_status: string | null;
  readonly ack_text: string | null;
  readonly date_ack: unknown;
}

const toRow = (r: Row): OutboundRow => ({
  id: toNumber(r.id),
  routingId: r.routingid,
  rawXml: r.clob_msg,
  insertedAt: toMs(r.date_inserted),
  sentAt: toMsOrNull(r.date_sent),
  ack: { status: r.ack_status, text: r.ack_text, at: toMsOrNull(r.date_ack) },
});

/**
 * An `OutboundMailbox` over a `COUTMSGS`-shaped table in PostgreSQL or PGlite (see
 * `createPgOutboundTable`), for the embedded runner. Each insert is its own autocommit statement:
 * the id is returned once committed; a connection lost on the way is `DEPENDENCY_UNAVAILABLE`
 * and the caller looks the row up before inserting again. Text compares are exact (`=` on text
 * is byte-wise equality in PostgreSQL).
 */
export class PgOutboundMailbox implements OutboundMailbox {
  readonly #db: Kysely<MsgxDatabase>;
  readonly #table: string;

  constructor(db: Kysely<MsgxDatabase>, options: { readonly table?: string } = {}) {
    this.#db = db;
    this.#table = options.table ?? "coutmsgs";
  }

  async insert(rawXml: string, routingId: string): Promise<number> {
    if (routingId === "") throw new RangeError("outbound insert: routingId must not be empty");
    const { rows } = await run(() =>
      sql<{ id: unknown }>`INSERT INTO ${sql.table(this.#table)} (clob_msg, routingid) VALUES (${rawXml}, ${routingId}) RETURNING id`.execute(this.#db),
    );
    return toNumber(rows[0]!.id);
  }

  async find(query: OutboundQuery): Promise<readonly OutboundRow[]> {
    const table = sql.table(this.#table);
    if ("ids" in query) {
      if (query.ids.length === 0) return [];
      const { rows } = await run(() =>
        sql<Row>`SELECT * FROM ${table} WHERE id = ANY(${query.ids.map(String)}::bigint[]) ORDER BY id`.execute(this.#db),
      );
      return rows.map(toRow);
    }
    const since = query.insertedSince === undefined ? sql`` : sql`AND date_inserted >= ${new Date(query.insertedSince).toISOString()}::timestamptz`;
    const { rows } = await run(() =>
      sql<Row>`SELECT * FROM ${table} WHERE routingid = ${query.routingId} AND clob_msg = ${query.rawXml} ${since} ORDER BY id`.execute(this.#db),
    );
    return rows.map(toRow);
  }
}

async function run<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw mapPgError(e, "outbound mailbox");
  }
}
