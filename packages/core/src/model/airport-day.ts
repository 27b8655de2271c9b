const pad = (n: number, w: number): string => String(n).padStart(w, "0");

/**
 * The airport-local date (`yyyyMMdd`) `days` whole days before the one `now` falls on, for an
 * airport at a fixed offset from UTC (`airport.utcOffsetMinutes`; China +480, no DST). The
 * history sweep's cutoff and the leader memory's first open day are both this date.
 */
export function airportDayBefore(now: number, days: number, utcOffsetMinutes: number): string {
  const local = new Date(now + utcOffsetMinutes * 60_000);
  local.setUTCDate(local.getUTCDate() - days);
  return `${pad(local.getUTCFullYear(), 4)}${pad(local.getUTCMonth() + 1, 2)}${pad(local.getUTCDate(), 2)}`;
}
