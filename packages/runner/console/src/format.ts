/** How the console writes numbers, times and values: fixed formats, so a refresh does not reflow. */

const integer = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

export const DASH = "—";

export function count(n: number | null | undefined): string {
  return n === null || n === undefined ? DASH : integer.format(n);
}

/** A duration: `850 ms`, `12.4 s`, `7 min 05 s`, `3 h 02 min`, `2 d 4 h`. */
export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return DASH;
  const v = Math.max(0, ms);
  if (v < 1_000) return `${Math.round(v)} ms`;
  if (v < 60_000) return `${(v / 1_000).toFixed(1)} s`;
  const s = Math.floor(v / 1_000);
  const pad = (n: number) => String(n).padStart(2, "0");
  if (s < 3_600) return `${Math.floor(s / 60)} min ${pad(s % 60)} s`;
  if (s < 86_400) return `${Math.floor(s / 3_600)} h ${pad(Math.floor((s % 3_600) / 60))} min`;
  return `${Math.floor(s / 86_400)} d ${Math.floor((s % 86_400) / 3_600)} h`;
}

/** An instant in the browser's local time, `2026-03-05 08:00:12`. */
export function instant(epochMs: number | null | undefined): string {
  if (epochMs === null || epochMs === undefined) return DASH;
  const d = new Date(epochMs);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** A META DTTM (`yyyyMMddHHmmss`, airport local) as `yyyy-MM-dd HH:mm:ss`. */
export function dttm(text: string | null | undefined): string {
  if (!text) return DASH;
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(text);
  return m ? `${m[1]}-${m[2]}-${m[3]} ${m[4]}:${m[5]}:${m[6]}` : text;
}

/**
 * A value of a diff or a record, by where it is (`field`: a diff's dotted path, `fields.<NAME>` by
 * default; `row.` for a collection row's value): absent (no value in the state), cleared (a field
 * or row value stated empty, `null`; a collection stated empty, `[]`) and a plain `null` (`ffid`,
 * `operationDay`: none) told apart (docs/events.md); strings as they are, anything else as JSON.
 */
export function value(v: unknown, field = "fields."): string {
  if (v === undefined) return "(absent)";
  if (v === null) return field.startsWith("fields.") || field.startsWith("row.") ? "(cleared)" : "null";
  if (Array.isArray(v) && v.length === 0 && field.startsWith("collections.")) return "(cleared: no rows)";
  if (typeof v === "string") return v;
  return JSON.stringify(v);
}
