import type { FieldChange, LineagePage, LineageVersion } from "@msgx/core";
import { textTable } from "./text-table.js";

/** The widest a CHANGES cell gets before it is cut (with `…`); `--json` prints everything. */
const CHANGES_WIDTH = 120;

const HEADER = ["VERSION", "AT (UTC)", "MSG", "TYPE", "DTTM", "STATUS", "PUBLISHED", "CHANGES"] as const;

/**
 * A lineage page as a text table, newest version first: one row per version with its source
 * message, where each event went (`target status partition@offset`) and what changed. A last line
 * says how to page on when older versions exist.
 */
export function lineageTable(page: LineagePage): string {
  const more = page.next === null ? [] : [`older versions: --before ${page.next}`];
  return [...textTable(HEADER, page.versions.map(row)), ...more].join("\n");
}

function row(v: LineageVersion): string[] {
  const s = v.source;
  return [
    String(v.version),
    utcSecond(v.at),
    s === null ? "-" : String(s.msgId),
    s === null ? "-" : `${s.type ?? "?"}/${s.subtype ?? "?"}`,
    s?.dttm ?? "-",
    s === null ? "-" : s.errorClass === null ? s.status : `${s.status} ${s.errorClass}`,
    v.events.map((e) => `${e.target} ${e.status}${e.partition === null ? "" : ` ${e.partition}@${e.offset}`}`).join(", "),
    cut(v.changes.map(change).join("; ")),
  ];
}

/** `field: before → after`, values as JSON; `+` for a new field, `-` for one gone. */
function change(c: FieldChange): string {
  if (!("before" in c)) return `+${c.field}=${JSON.stringify(c.after)}`;
  if (!("after" in c)) return `-${c.field}`;
  return `${c.field}: ${JSON.stringify(c.before)} → ${JSON.stringify(c.after)}`;
}

/** An instant as `yyyy-MM-dd HH:mm:ss` (UTC). */
export const utcSecond = (ms: number): string => new Date(ms).toISOString().replace("T", " ").slice(0, 19);

const cut = (text: string): string => (text.length <= CHANGES_WIDTH ? text : `${text.slice(0, CHANGES_WIDTH - 1)}…`);
