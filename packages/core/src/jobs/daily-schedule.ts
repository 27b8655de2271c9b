const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
const TIME_OF_DAY = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** Minutes after local midnight of an `HH:MM` time (00:00–23:59). Throws `RangeError` otherwise. */
export function parseTimeOfDay(at: string): number {
  const m = TIME_OF_DAY.exec(at);
  if (m === null) throw new RangeError(`not a time of day (HH:MM, 00:00-23:59): ${JSON.stringify(at)}`);
  return Number(m[1]) * 60 + Number(m[2]);
}

/**
 * Pure: the first instant **strictly after** `now` (epoch ms) at which the airport's clock reads
 * `at` (`HH:MM`). The airport keeps a fixed offset from UTC (`utcOffsetMinutes`, +480 for China;
 * no daylight saving), so every day is exactly 24 h and a run at `now` itself is never repeated.
 */
export function nextRunAt(now: number, at: string, utcOffsetMinutes: number): number {
  if (!Number.isInteger(utcOffsetMinutes) || utcOffsetMinutes < -720 || utcOffsetMinutes > 840) {
    throw new RangeError(`utcOffsetMinutes must be an integer in [-720, 840], got ${utcOffsetMinutes}`);
  }
  const offsetMs = utcOffsetMinutes * MINUTE_MS;
  const localMidnight = Math.floor((now + offsetMs) / DAY_MS) * DAY_MS;
  const today = localMidnight + parseTimeOfDay(at) * MINUTE_MS - offsetMs;
  return today > now ? today : today + DAY_MS;
}
