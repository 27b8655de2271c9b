import type { Meta } from "../model/meta.js";

/**
 * The upstream mailbox's `SUBSYSTEM_*` columns, the one rule every `Mailbox` follows when it
 * backfills them (the MySQL mailbox, the embedded PostgreSQL/PGlite table, the in-memory fake):
 * widths counted in characters, the sequence within its signed range, the `DTTM` a real date-time
 * written as MySQL's `DATETIME` text. `describeMailboxContract` holds every mailbox to it.
 */

/** The widths of the upstream's `SUBSYSTEM_*` columns (WIRE.md "Mailbox tables"). */
export interface SubsystemColumns {
  /** `SUBSYSTEM_NAME VARCHAR(n)`, in characters. */
  readonly name: number;
  /** `SUBSYSTEM_TYPE VARCHAR(n)`. */
  readonly type: number;
  /** `SUBSYSTEM_SUBTYPE VARCHAR(n)`. */
  readonly subtype: number;
  /** `SUBSYSTEM_SEQUENCE` range (signed `MEDIUMINT`). */
  readonly minSequence: number;
  readonly maxSequence: number;
  /**
   * `SUBSYSTEM_DATE_SENT` type: `datetime` writes the META `DTTM` as `YYYY-MM-DD HH:MM:SS` (the
   * sender's local wall time, no zone conversion); `text` writes the 14 digits as they came.
   */
  readonly dateSent: "datetime" | "text";
}

export const CMINMSGS_SUBSYSTEM_COLUMNS: SubsystemColumns = {
  name: 4,
  type: 4,
  subtype: 4,
  minSequence: -8_388_608,
  maxSequence: 8_388_607,
  dateSent: "datetime",
};

/** The five values a backfill writes for a decoded META. */
export interface SubsystemValues {
  readonly name: string;
  readonly sequence: number;
  readonly dateSent: string;
  readonly type: string;
  readonly subtype: string;
}

const DTTM = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/;

/**
 * `yyyyMMddHHmmss` (the META `DTTM`, airport-local wall time) as `YYYY-MM-DD HH:MM:SS`, unchanged
 * in zone; null when it is not a real date-time within the `DATETIME` range (years 1000–9999).
 */
export function dttmToDatetime(dttm: string): string | null {
  const m = DTTM.exec(dttm);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (year < 1000 || year > 9999) return null;
  // Date.UTC rolls 31 Feb over into March: a real reading survives the round trip unchanged.
  const d = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  const real = d.getUTCMonth() === month - 1 && d.getUTCDate() === day && d.getUTCHours() === hour && d.getUTCMinutes() === minute && d.getUTCSeconds() === second;
  return real ? `${m[1]}-${m[2]}-${m[3]} ${m[4]}:${m[5]}:${m[6]}` : null;
}

/** VARCHAR widths count characters; JS `length` counts UTF-16 units. */
const chars = (s: string): number => [...s].length;

/**
 * The column values for `meta`, or why one of them does not fit (then none is written: a row
 * gets all four `SUBSYSTEM_*` values or none, as in the in-memory mailbox).
 */
export function subsystemValues(
  meta: Meta,
  columns: SubsystemColumns,
): { readonly ok: true; readonly values: SubsystemValues } | { readonly ok: false; readonly reason: string } {
  if (chars(meta.sndr) > columns.name) return { ok: false, reason: `SUBSYSTEM_NAME too long: ${meta.sndr}` };
  if (chars(meta.type) > columns.type) return { ok: false, reason: `SUBSYSTEM_TYPE too long: ${meta.type}` };
  if (chars(meta.styp) > columns.subtype) return { ok: false, reason: `SUBSYSTEM_SUBTYPE too long: ${meta.styp}` };
  if (!Number.isInteger(meta.seqn) || meta.seqn < columns.minSequence || meta.seqn > columns.maxSequence) {
    return { ok: false, reason: `SUBSYSTEM_SEQUENCE out of range: ${meta.seqn}` };
  }
  const dateSent = columns.dateSent === "datetime" ? dttmToDatetime(meta.dttm) : meta.dttm;
  if (dateSent === null) return { ok: false, reason: `SUBSYSTEM_DATE_SENT not a date-time: ${meta.dttm}` };
  return { ok: true, values: { name: meta.sndr, sequence: meta.seqn, dateSent, type: meta.type, subtype: meta.styp } };
}
