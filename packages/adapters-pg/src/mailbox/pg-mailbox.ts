import { sql, type Kysely } from "kysely";
import type { MsgxDatabase } from "../rows/tables.js";
import { CMINMSGS_SUBSYSTEM_COLUMNS, subsystemValues, type BackfillEntry, type BackfillResult, type Mailbox, type MailboxRow, type RawRead } from "@msgx/core";
import { pgCall } from "../pg-error-map.js";

export interface PgMailboxOptions {
  readonly table?: string;
  readonly onlyValidStatus?: boolean;
}

/**
 * A `Mailbox` over a `CMINMSGS`-shaped table in PostgreSQL or PGlite (see
 * `createPgMailboxTable`). Same guarantees as the MySQL mailbox: `scan` returns every committed
 * row so gaps can be told from processed rows, backfill is idempotent and batched in one
 * statement, and driver errors leave as `MsgxError`.
 */
export class PgMailbox implements Mailbox {
  readonly #db: Kysely<MsgxDatabase>;
  readonly #table: string;
  readonly #onlyValid: boolean;

  constructor(db: Kysely<MsgxDatabase>, options: PgMailboxOptions = {}) {
    this.#db = db;
    this.#table = options.table ?? "cminmsgs";
    this.#onlyValid = options.onlyValidStatus ?? false;
  }

  async scan(afterId: number, limit: number): Promise<readonly MailboxRow[]> {
    const pending = this.#onlyValid ? sql`(date_processed IS NULL AND status = 'VALID')` : sql`(date_processed IS NULL)`;
    const rows = await pgCall("mailbox", () =>
      sql<{ id: string; received: string; pending: boolean }>`
        SELECT id::text AS id, (extract(epoch FROM date_received) * 1000)::bigint::text AS received, ${pending} AS pending
        FROM ${sql.table(this.#table)} WHERE id > ${afterId} ORDER BY id LIMIT ${limit}`.execute(this.#db),
    );
    return rows.rows.map((r) => ({ msgId: Number(r.id), receivedAt: Number(r.received), pending: r.pending }));
  }

  async readRaw(msgIds: readonly number[]): Promise<ReadonlyMap<number, RawRead>> {
    const result = new Map<number, RawRead>(msgIds.map((id) => [id, { found: false }]));
    if (msgIds.length === 0) return result;
    const rows = await pgCall("mailbox", () =>
      sql<{ id: string; clob_msg: string }>`
        SELECT id::text AS id, clob_msg FROM ${sql.table(this.#table)}
        WHERE id = ANY(${sql.val(msgIds.map(String))}::bigint[])`.execute(this.#db),
    );
    for (const r of rows.rows) result.set(Number(r.id), { found: true, text: r.clob_msg });
    return result;
  }

  async backfill(entries: readonly BackfillEntry[]): Promise<BackfillResult> {
    if (entries.length === 0) return { written: [], alreadyDone: [], defects: [] };
    // The upstream columns' rule (core's subsystemValues): a value that does not fit is a defect,
    // and the row gets none of the SUBSYSTEM_* values.
    const fits = entries.map((e) => ({ entry: e, fit: e.meta ? subsystemValues(e.meta, CMINMSGS_SUBSYSTEM_COLUMNS) : null }));
    const defects = fits.flatMap(({ entry, fit }) => (fit && !fit.ok ? [{ msgId: entry.msgId, reason: fit.reason }] : []));
    const rows = fits.map(({ entry, fit }) => {
      const v = fit?.ok ? fit.values : null;
      return { id: String(entry.msgId), at: new Date(entry.processedAt).toISOString(), name: v?.name ?? null, seq: v?.sequence ?? null, sent: v?.dateSent ?? null, type: v?.type ?? null, sub: v?.subtype ?? null };
    });
    // One statement for the whole batch; `WHERE date_processed IS NULL` makes it idempotent.
    const updated = await pgCall("mailbox", () =>
      sql<{ id: string }>`
        UPDATE ${sql.table(this.#table)} AS m SET
          date_processed = v.at, subsystem_name = v.name, subsystem_sequence = v.seq,
          subsystem_date_sent = v.sent, subsystem_type = v.type, subsystem_subtype = v.sub
        FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
          AS v(id bigint, at timestamptz, name text, seq integer, sent text, type text, sub text)
        WHERE m.id = v.id AND m.date_processed IS NULL
        RETURNING m.id::text AS id`.execute(this.#db),
    );
    const written = new Set(updated.rows.map((r) => Number(r.id)));
    return {
      written: entries.filter((e) => written.has(e.msgId)).map((e) => e.msgId),
      alreadyDone: entries.filter((e) => !written.has(e.msgId)).map((e) => e.msgId),
      defects,
    };
  }

  async append(rawXml: string): Promise<number> {
    const row = await pgCall("mailbox", () =>
      sql<{ id: string }>`INSERT INTO ${sql.table(this.#table)} (clob_msg) VALUES (${rawXml}) RETURNING id::text AS id`.execute(this.#db),
    );
    return Number(row.rows[0]!.id);
  }
}

