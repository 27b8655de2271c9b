/**
 * Every conversion between an instant (epoch ms) and a MySQL `DATETIME` lives here. A `DATETIME`
 * is a wall-clock reading with no zone, so each conversion names the zone the column is kept in,
 * as a fixed offset (`+00:00`, `+08:00`). SQL text is always built from these strings, never from
 * a JS `Date` handed to the driver, so the result does not depend on the pool's `timezone` or
 * `dateStrings` settings.
 */

const OFFSET = /^([+-])(\d{2}):(\d{2})$/;
const DATETIME = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?$/;
/** The `DATETIME` range. */
const MIN_YEAR = 1000;
const MAX_YEAR = 9999;

/** Minutes east of UTC for `+HH:MM` / `-HH:MM`. Throws a `RangeError` on anything else. */
export function zoneOffsetMinutes(offset: string): number {
  const m = OFFSET.exec(offset);
  if (!m) throw new RangeError(`time zone must be a fixed offset like +08:00, got ${JSON.stringify(offset)}`);
  const minutes = Number(m[2]) * 60 + Number(m[3]);
  if (Number(m[2]) > 14 || Number(m[3]) > 59) throw new RangeError(`time zone offset out of range: ${offset}`);
  return m[1] === "-" ? -minutes : minutes;
}

const pad = (n: number, width = 2): string => String(n).padStart(width, "0");

/**
 * `YYYY-MM-DD HH:MM:SS` of `instant` in the zone `offset`, for a `DATETIME` (no fraction)
 * column. Milliseconds are truncated, never rounded: MySQL would round `.600` up to the next
 * second, which could put a recorded time after the instant it records.
 */
export function instantToDatetime(instant: number, offset = "+00:00"): string {
  if (!Number.isFinite(instant)) throw new RangeError(`not an instant: ${instant}`);
  const wall = new Date(Math.floor(instant / 1000) * 1000 + zoneOffsetMinutes(offset) * 60_000);
  const year = wall.getUTCFullYear();
  if (year < MIN_YEAR || year > MAX_YEAR) throw new RangeError(`instant outside the DATETIME range: ${instant}`);
  return (
    `${pad(year, 4)}-${pad(wall.getUTCMonth() + 1)}-${pad(wall.getUTCDate())} ` +
    `${pad(wall.getUTCHours())}:${pad(wall.getUTCMinutes())}:${pad(wall.getUTCSeconds())}`
  );
}

/**
 * The instant of a `DATETIME` text (`YYYY-MM-DD HH:MM:SS[.ffffff]`, as `DATE_FORMAT(col,
 * '%Y-%m-%d %H:%i:%s.%f')` gives it) read in the zone `offset`. Fractions below a millisecond are
 * dropped. Throws a `RangeError` when the text is not a valid date-time.
 */
export function datetimeToInstant(text: string, offset = "+00:00"): number {
  const m = DATETIME.exec(text);
  if (!m) throw new RangeError(`not a DATETIME: ${JSON.stringify(text)}`);
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const ms = Math.floor(Number(`0.${m[7] ?? "0"}`) * 1000);
  const utc = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  if (!sameFields(utc, year, month, day, hour, minute, second)) throw new RangeError(`not a valid DATETIME: ${text}`);
  return utc - zoneOffsetMinutes(offset) * 60_000;
}

/** Date.UTC rolls 31 Feb over into March; a valid reading survives the round trip unchanged. */
function sameFields(utc: number, year: number, month: number, day: number, hour: number, minute: number, second: number): boolean {
  const d = new Date(utc);
  return (
    d.getUTCFullYear() === year &&
    d.getUTCMonth() === month - 1 &&
    d.getUTCDate() === day &&
    d.getUTCHours() === hour &&
    d.getUTCMinutes() === minute &&
    d.getUTCSeconds() === second
  );
}

/** The `DATE_FORMAT` pattern that reads a `DATETIME[(n)]` column back as text for {@link datetimeToInstant}. */
export const DATETIME_READ_FORMAT = "%Y-%m-%d %H:%i:%s.%f";
