import { sql, type Kysely } from "kysely";
import type { MsgxDatabase } from "../rows/tables.js";
import type { BackfillEntry, BackfillResult, Mailbox, MailboxRow, Meta, RawRead } from "@msgx/core";
import { pgCall } from "../pg-error-map.js";

/** Column widths of the upstream table; a longer META value is a defect, never truncated. */
const LIMITS = { name: 4, type: 4, subtype: 4, maxSequence: 8_388_607 } as const;

function defect(meta: Meta): string | null {
  if (meta.sndr.length > LIMITS.name) return `SUBSYSTEM_NAME too long: ${meta.sndr}`;
  if (meta.type.length > LIMITS.type) return `SUBSYSTEM_TYPE too long: ${meta.type}`;
  if (meta.styp.length > LIMITS.subtype) return `SUBSYSTEM_SUBTYPE too long: ${meta.styp}`;
  if (meta.seqn > LIMITS.maxSequence) return `SUBSYSTEM_SEQUENCE out of range: ${meta.seqn}`;
  return null;
}

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
    const defects = entries.flatMap((e) => {
      const d = e.meta ? defect(e.meta) : null;
      return d ? [{ msgId: e.msgId, reason: d }] : [];
    });
    const bad = new Set(defects.map((d) => d.msgId));
    const rows = entries.map((e) => {
      const m = e.meta && !bad.has(e.msgId) ? e.meta : null;
      return { id: String(e.msgId), at: new Date(e.processedAt).toISOString(), name: m?.sndr ?? null, seq: m?.seqn ?? null, sent: m?.dttm ?? null, type: m?.type ?? null, sub: m?.styp ?? null };
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

