/**
 * Body time formats of the SIS interface (WIRE.md "Body formats"). All times are airport local
 * time and stay local: nothing here knows a time zone or reads a clock. Calendar arithmetic uses
 * UTC `Date` fields only because UTC has no DST gaps.
 */

const MONTHS = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"] as const;

const BODY_TIME = /^(\d{2})([A-Za-z]{3})(\d{2})(\d{2})(\d{2})$/;
const BODY_DATE = /^(\d{2})([A-Za-z]{3})(\d{2})$/;
const NUMERIC_TIME = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})?$/;
const DURATION = /^(\d{2})(\d{2})$/;
const ISO_LOCAL = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/;

const pad2 = (n: number): string => String(n).padStart(2, "0");
const pad4 = (n: number): string => String(n).padStart(4, "0");

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** A real calendar date; `month` is 1-based. */
export function isCalendarDate(year: number, month: number, day: number): boolean {
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

function monthNumber(text: string): number {
  return MONTHS.indexOf(text.toUpperCase() as (typeof MONTHS)[number]) + 1;
}

function isoLocal(year: number, month: number, day: number, hour: number, minute: number): string | null {
  if (!isCalendarDate(year, month, day) || hour > 23 || minute > 59) return null;
  return `${pad4(year)}-${pad2(month)}-${pad2(day)}T${pad2(hour)}:${pad2(minute)}`;
}

/**
 * Parses a body time `ddMMMyyHHmm` (e.g. `15DEC031530`; month in English, any case; `yy` means
 * 20yy) into ISO local `yyyy-MM-ddTHH:mm`.
 *
 * With `numericTolerance` it also accepts 12-digit `yyyyMMddHHmm` and 14-digit `yyyyMMddHHmmss`
 * (seconds are validated, then dropped). Surrounding whitespace is ignored.
 *
 * Guarantees: returns `null`, never throws, for anything that is not a real calendar date with
 * hours 00–23 and minutes (and seconds) 00–59.
 */
export function parseBodyTime(text: string, numericTolerance = false): string | null {
  const t = text.trim();
  const m = BODY_TIME.exec(t);
  if (m) {
    const [, dd, mmm, yy, hh, mi] = m as unknown as [string, string, string, string, string, string];
    return isoLocal(2000 + Number(yy), monthNumber(mmm), Number(dd), Number(hh), Number(mi));
  }
  if (!numericTolerance) return null;
  const n = NUMERIC_TIME.exec(t);
  if (!n) return null;
  const [, yyyy, mo, dd, hh, mi, ss] = n as unknown as [string, string, string, string, string, string, string?];
  if (ss !== undefined && Number(ss) > 59) return null;
  return isoLocal(Number(yyyy), Number(mo), Number(dd), Number(hh), Number(mi));
}

/**
 * Parses a body date `ddMMMyy` (e.g. `05MAR26`) into ISO `yyyy-MM-dd`; `null` unless it is a real
 * calendar date. Never throws.
 */
export function parseBodyDate(text: string): string | null {
  const m = BODY_DATE.exec(text.trim());
  if (!m) return null;
  const [, dd, mmm, yy] = m as unknown as [string, string, string, string];
  const iso = isoLocal(2000 + Number(yy), monthNumber(mmm), Number(dd), 0, 0);
  return iso === null ? null : iso.slice(0, 10);
}

/**
 * Parses a duration `HHMM` (hours 00–99, minutes 00–59) into `HH:MM`; `null` otherwise.
 * Never throws.
 */
export function parseDuration(text: string): string | null {
  const m = DURATION.exec(text.trim());
  if (!m) return null;
  const [, hh, mi] = m as unknown as [string, string, string];
  return Number(mi) > 59 ? null : `${hh}:${mi}`;
}

function splitIsoLocal(iso: string): [number, number, number, number, number] {
  const m = ISO_LOCAL.exec(iso);
  if (m) {
    const parts = m.slice(1).map(Number) as [number, number, number, number, number];
    if (isoLocal(...parts) === iso) return parts;
  }
  throw new RangeError(`not an ISO local time yyyy-MM-ddTHH:mm: ${JSON.stringify(iso)}`);
}

/**
 * Formats ISO local `yyyy-MM-ddTHH:mm` (years 2000–2099) as a body time `ddMMMyyHHmm` with an
 * upper-case month: the exact inverse of {@link parseBodyTime} on its canonical output.
 *
 * @throws RangeError when `isoLocal` is not a valid ISO local time in 2000–2099 (a caller bug).
 */
export function formatBodyTime(isoLocal: string): string {
  const [year, month, day, hour, minute] = splitIsoLocal(isoLocal);
  if (year < 2000 || year > 2099) throw new RangeError(`body times cover 2000–2099 only: ${isoLocal}`);
  return `${pad2(day)}${MONTHS[month - 1]}${pad2(year - 2000)}${pad2(hour)}${pad2(minute)}`;
}

/**
 * The operation day (`yyyyMMdd`) of a flight whose scheduled time is `isoLocal`: its local date,
 * after shifting the time back by `dayStartOffsetMinutes` (with 240, 03:59 still belongs to the
 * previous day and 04:00 to its own).
 *
 * @throws RangeError when `isoLocal` is not a valid `yyyy-MM-ddTHH:mm` (the codec never yields one).
 */
export function operationDayOf(isoLocal: string, dayStartOffsetMinutes = 0): string {
  const [year, month, day, hour, minute] = splitIsoLocal(isoLocal);
  // setUTCFullYear, unlike Date.UTC, does not map years 0–99 onto 1900–1999.
  const shifted = new Date(0);
  shifted.setUTCFullYear(year, month - 1, day);
  shifted.setUTCHours(hour, minute - dayStartOffsetMinutes, 0, 0);
  return `${pad4(shifted.getUTCFullYear())}${pad2(shifted.getUTCMonth() + 1)}${pad2(shifted.getUTCDate())}`;
}
