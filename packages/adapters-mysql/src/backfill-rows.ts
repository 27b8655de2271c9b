import { MsgxError, type BackfillEntry } from "@msgx/core";
import type { MysqlWriteResult } from "./mysql-driver.js";
import type { QuotedMailboxNames } from "./mailbox-names.js";
import { instantToDatetime } from "./mysql-datetime.js";
import type { SqlRunner } from "./mysql-session.js";
import { toSafeId } from "./safe-id.js";
import { subsystemValues, type SubsystemColumns, type SubsystemValues } from "@msgx/core";

/** What one backfill transaction did. */
export interface BackfillChunkResult {
  readonly written: number[];
  readonly alreadyDone: number[];
  readonly defects: { readonly msgId: number; readonly reason: string }[];
}

interface Planned {
  readonly msgId: number;
  /** `DATE_PROCESSED` as UTC `DATETIME` text. */
  readonly processedAt: string;
  readonly subsystem: SubsystemValues | null;
  readonly defect: string | null;
}

/**
 * Checks every entry before anything is written: a value that does not fit becomes a defect.
 * `widths` null: the `SUBSYSTEM_*` columns are not written at all.
 */
function plan(entries: readonly BackfillEntry[], widths: SubsystemColumns | null): Planned[] {
  return entries.map((e) => {
    const fit = e.meta === null || widths === null ? null : subsystemValues(e.meta, widths);
    return {
      msgId: e.msgId,
      processedAt: instantToDatetime(e.processedAt, "+00:00"),
      subsystem: fit?.ok ? fit.values : null,
      defect: fit && !fit.ok ? fit.reason : null,
    };
  });
}

/** `SET col = CASE id WHEN ? THEN ? … ELSE col END` over the rows that carry a value. */
function caseColumn(id: string, column: string, rows: readonly Planned[], value: (p: Planned) => unknown, values: unknown[]): string {
  const branches = rows.map((p) => {
    values.push(p.msgId, value(p));
    return "WHEN ? THEN ?";
  });
  return `${column} = CASE ${id} ${branches.join(" ")} ELSE ${column} END`;
}

/**
 * `backfill` for one chunk of entries (distinct ids), run inside the caller's transaction, in
 * three statements whatever the chunk size:
 * 1. `SELECT … FOR UPDATE` the rows that still have `DATE_PROCESSED IS NULL`: exactly the rows
 *    this call writes; locked, so no concurrent backfill can take them between 1 and 2;
 * 2. one `UPDATE … SET DATE_PROCESSED = CASE ID …, SUBSYSTEM_* = CASE ID …` over those rows,
 *    again guarded by `DATE_PROCESSED IS NULL`, so a replayed call writes nothing (idempotent);
 * 3. (the caller's COMMIT).
 * Rows not locked in 1 were backfilled before or are gone: `alreadyDone`. A META value that does
 * not fit its column is reported in `defects` and that row gets `DATE_PROCESSED` only, its
 * `SUBSYSTEM_*` columns untouched: never a truncated value. `DATE_PROCESSED` is UTC. With
 * `widths` null only `DATE_PROCESSED` is written, as the upstream's own client does.
 */
export async function backfillRows(
  sql: SqlRunner,
  names: QuotedMailboxNames,
  entries: readonly BackfillEntry[],
  widths: SubsystemColumns | null,
): Promise<BackfillChunkResult> {
  const { table, columns: c } = names.inbound;
  const planned = plan(entries, widths);
  const ids = planned.map((p) => p.msgId);
  const locked = (await sql.query(`SELECT ${c.id} AS id FROM ${table} WHERE ${c.id} IN (?) AND ${c.dateProcessed} IS NULL FOR UPDATE`, [ids])) as readonly {
    id: unknown;
  }[];
  const open = new Set(locked.map((r) => toSafeId(r.id, "backfill")));
  const toWrite = planned.filter((p) => open.has(p.msgId));
  const result: BackfillChunkResult = {
    written: toWrite.map((p) => p.msgId),
    alreadyDone: planned.filter((p) => !open.has(p.msgId)).map((p) => p.msgId),
    defects: toWrite.flatMap((p) => (p.defect === null ? [] : [{ msgId: p.msgId, reason: p.defect }])),
  };
  if (toWrite.length === 0) return result;

  const values: unknown[] = [];
  const withMeta = toWrite.filter((p) => p.subsystem !== null);
  const sets = [
    caseColumn(c.id, c.dateProcessed, toWrite, (p) => p.processedAt, values),
    ...(withMeta.length === 0
      ? []
      : [
          caseColumn(c.id, c.subsystemName, withMeta, (p) => p.subsystem?.name, values),
          caseColumn(c.id, c.subsystemSequence, withMeta, (p) => p.subsystem?.sequence, values),
          caseColumn(c.id, c.subsystemDateSent, withMeta, (p) => p.subsystem?.dateSent, values),
          caseColumn(c.id, c.subsystemType, withMeta, (p) => p.subsystem?.type, values),
          caseColumn(c.id, c.subsystemSubtype, withMeta, (p) => p.subsystem?.subtype, values),
        ]),
  ];
  values.push(result.written);
  const update = (await sql.query(
    `UPDATE ${table} SET ${sets.join(", ")} WHERE ${c.id} IN (?) AND ${c.dateProcessed} IS NULL`,
    values,
  )) as MysqlWriteResult;
  // The rows are locked by step 1, so the counts agree; if not, the commit must not happen.
  if (update.affectedRows !== toWrite.length) {
    throw new MsgxError("INFRA", `backfill: updated ${update.affectedRows} rows, expected ${toWrite.length}`);
  }
  return result;
}
