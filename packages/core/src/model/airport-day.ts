const pad = (n: number, w: number): string => String(n).padStart(w, "0");

/**
 * The operation day (`yyyyMMdd`) `days` whole days before the one `now` falls in, for an airport
 * at a fixed offset from UTC (`airport.utcOffsetMinutes`; China +480, no DST) whose operation day
 * starts `dayStartOffsetMinutes` after local midnight (`airport.dayStartOffsetMinutes`: with 240,
 * 03:59 local still belongs to the day before, as `operationDayOf` dates a flight). The history
 * sweep's cutoff and the leader memory's first open day are both this date.
 */
export function airportDayBefore(now: number, days: number, utcOffsetMinutes: number, dayStartOffsetMinutes = 0): string {
  const local = new Date(now + (utcOffsetMinutes - dayStartOffsetMinutes) * 60_000);
  local.setUTCDate(local.getUTCDate() - days);
  return `${pad(local.getUTCFullYear(), 4)}${pad(local.getUTCMonth() + 1, 2)}${pad(local.getUTCDate(), 2)}`;
}
