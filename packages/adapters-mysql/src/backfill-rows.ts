import type { BackfillEntry } from "@msgx/core";
import type { MysqlWriteResult } from "./mysql-driver.js";
import type { QuotedMailboxNames } from "./mailbox-names.js";
import { instantToDatetime } from "./mysql-datetime.js";
import type { SqlRunner } from "./mysql-session.js";
import { toSafeId } from "./safe-id.js";
import { subsystemValues, type SubsystemColumns, type SubsystemValues } from "@msgx/core";

/** What one backfill statement did. */
export interface BackfillChunkResult {
  readonly written: number[];
  readonly alreadyDone: number[];
  readonly defects: { readonly msgId: number; readonly reason: string }[];
}

/** One entry checked and converted, ready for the UPDATE. */
export interface PlannedBackfill {
  readonly msgId: number;
  /** `DATE_PROCESSED` as UTC `DATETIME` text, whole seconds. */
  readonly processedAt: string;
  readonly subsystem: SubsystemValues | null;
  readonly defect: string | null;
}

/**
 * Checks every entry before anything is written: a value that does not fit becomes a defect.
 * `widths` null: the `SUBSYSTEM_*` columns are not written at all.
 */
export function planBackfill(entries: readonly BackfillEntry[], widths: SubsystemColumns | null): PlannedBackfill[] {
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

/** `CASE id WHEN ? THEN ? … [ELSE otherwise] END`: each row's own value; its parameters go to `values`. */
function caseById(id: string, rows: readonly PlannedBackfill[], value: (p: PlannedBackfill) => unknown, values: unknown[], otherwise?: string): string {
  const branches = rows.map((p) => {
    values.push(p.msgId, value(p));
    return "WHEN ? THEN ?";
  });
  return `CASE ${id} ${branches.join(" ")}${otherwise === undefined ? "" : ` ELSE ${otherwise}`} END`;
}

/** `SET col = CASE id WHEN ? THEN ? … ELSE col END` over the rows that carry a value. */
function caseColumn(id: string, column: string, rows: readonly PlannedBackfill[], value: (p: PlannedBackfill) => unknown, values: unknown[]): string {
  return `${column} = ${caseById(id, rows, value, values, column)}`;
}

/**
 * The one `UPDATE … SET DATE_PROCESSED = CASE ID …, SUBSYSTEM_* = CASE ID … WHERE ID IN (…) AND
 * DATE_PROCESSED IS NULL` that writes `planned`: a row already processed (or gone) is not touched,
 * so replaying it writes nothing, and under InnoDB's row lock two such statements never both
 * write one row (the second re-reads the row once the first committed and finds it done).
 */
export function backfillUpdate(names: QuotedMailboxNames, planned: readonly PlannedBackfill[]): { readonly sql: string; readonly values: unknown[] } {
  const { table, columns: c } = names.inbound;
  const values: unknown[] = [];
  const withMeta = planned.filter((p) => p.subsystem !== null);
  const sets = [
    caseColumn(c.id, c.dateProcessed, planned, (p) => p.processedAt, values),
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
  values.push(planned.map((p) => p.msgId));
  return { sql: `UPDATE ${table} SET ${sets.join(", ")} WHERE ${c.id} IN (?) AND ${c.dateProcessed} IS NULL`, values };
}

/**
 * `backfill` for one chunk of entries (distinct ids) in autocommit: the {@link backfillUpdate}
 * statement alone, which is its own COMMIT. Its `affectedRows` counts the rows it wrote (matched
 * or changed alike: each matched row had `DATE_PROCESSED` NULL).
 * - `affectedRows` equal to the chunk: every row was written by this call; nothing else is sent.
 * - `affectedRows` 0: every row was processed before or is gone: all `alreadyDone`.
 * - in between: one read of the chunk's rows tells them apart. A row written by this call holds
 *   this call's `DATE_PROCESSED`; a row missing or holding another value is `alreadyDone`. Only a
 *   row a concurrent call wrote with the very same value (the same entry, the pump's write-back
 *   racing the sweep's) cannot be told apart: it counts as written by both. Callers complete the
 *   todo for `written` and `alreadyDone` alike, so the only effect is a defect logged twice rather
 *   than never.
 * A META value that does not fit its column is reported in `defects` for the rows written, and
 * that row gets `DATE_PROCESSED` only, its `SUBSYSTEM_*` columns untouched: never a truncated
 * value. `DATE_PROCESSED` is UTC. With `widths` null only `DATE_PROCESSED` is written, as the
 * upstream's own client does.
 */
export async function backfillRows(
  sql: SqlRunner,
  names: QuotedMailboxNames,
  entries: readonly BackfillEntry[],
  widths: SubsystemColumns | null,
): Promise<BackfillChunkResult> {
  const planned = planBackfill(entries, widths);
  const update = backfillUpdate(names, planned);
  const { affectedRows } = (await sql.query(update.sql, update.values)) as MysqlWriteResult;
  const written =
    affectedRows === planned.length ? planned : affectedRows === 0 ? [] : await holdingOwnValue(sql, names, planned);
  const mine = new Set(written.map((p) => p.msgId));
  return {
    written: written.map((p) => p.msgId),
    alreadyDone: planned.filter((p) => !mine.has(p.msgId)).map((p) => p.msgId),
    defects: written.flatMap((p) => (p.defect === null ? [] : [{ msgId: p.msgId, reason: p.defect }])),
  };
}

/**
 * The planned rows whose `DATE_PROCESSED` is the value planned for them, in one read. The server
 * compares, as `DATETIME`s, so a column kept with a fraction compares alike.
 */
async function holdingOwnValue(sql: SqlRunner, names: QuotedMailboxNames, planned: readonly PlannedBackfill[]): Promise<PlannedBackfill[]> {
  const { table, columns: c } = names.inbound;
  const values: unknown[] = [];
  const own = caseById(c.id, planned, (p) => p.processedAt, values);
  values.push(planned.map((p) => p.msgId));
  const rows = (await sql.query(`SELECT ${c.id} AS id FROM ${table} WHERE ${c.dateProcessed} = ${own} AND ${c.id} IN (?)`, values)) as readonly { id: unknown }[];
  const holding = new Set(rows.map((r) => toSafeId(r.id, "backfill")));
  return planned.filter((p) => holding.has(p.msgId));
}
