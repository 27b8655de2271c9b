const DTTM = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/;

const pad = (n: number, width = 2): string => String(n).padStart(width, "0");

/**
 * The instant (epoch ms) of an airport-local `yyyyMMddHHmmss` (META DTTM) at a fixed UTC offset
 * in minutes (+480 for China). Undefined when the text is not of that form.
 */
export function dttmToEpochMs(dttm: string, utcOffsetMinutes: number): number | undefined {
  const m = DTTM.exec(dttm);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  const local = new Date(0);
  local.setUTCFullYear(y, mo - 1, d);
  local.setUTCHours(h, mi, s, 0);
  return local.getTime() - utcOffsetMinutes * 60_000;
}

/**
 * The airport-local `yyyyMMddHHmmss` of an instant at a fixed UTC offset: the inverse of
 * {@link dttmToEpochMs} (milliseconds are dropped). For the META DTTM of our requests.
 */
export function epochMsToDttm(ms: number, utcOffsetMinutes: number): string {
  const local = new Date(ms + utcOffsetMinutes * 60_000);
  return (
    pad(local.getUTCFullYear(), 4) +
    pad(local.getUTCMonth() + 1) +
    pad(local.getUTCDate()) +
    pad(local.getUTCHours()) +
    pad(local.getUTCMinutes()) +
    pad(local.getUTCSeconds())
  );
}
