import type { Clock } from "@msgx/core";

/** A store count a gauge reads at scrape time: rows per status or phase. */
export type CountReader = () => Promise<Readonly<Record<string, number>>>;

/** Gauges over store counts read the store at most this often: a scrape every few seconds must not count a table each time. */
export const STORE_COUNT_CACHE_MS = 15_000;

/**
 * `read`, answered from the last result while it is younger than `maxAgeMs` on `clock`. A failed
 * read throws and keeps the last result for the next call.
 */
export function cachedCounts(read: CountReader, clock: Clock, maxAgeMs = STORE_COUNT_CACHE_MS): CountReader {
  let cached: { readonly at: number; readonly counts: Readonly<Record<string, number>> } | undefined;
  return async () => {
    if (cached === undefined || clock.now() - cached.at >= maxAgeMs) cached = { at: clock.now(), counts: await read() };
    return cached.counts;
  };
}
