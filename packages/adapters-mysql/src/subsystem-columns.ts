import type { Meta } from "@msgx/core";
import { dttmToDatetime } from "./mysql-datetime.js";

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
