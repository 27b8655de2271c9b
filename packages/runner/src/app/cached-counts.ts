import type { Clock } from "@msgx/core";
import { Gauge, type Registry } from "prom-client";

/** A store count a gauge reads at scrape time: rows per status or phase. */
export type CountReader = () => Promise<Readonly<Record<string, number>>>;

/** Gauges over store counts read the store at most this often: a scrape every few seconds must not count a table each time. */
export const STORE_COUNT_CACHE_MS = 15_000;

/**
 * `read`, answered from the last result while it is younger than `maxAgeMs` on `clock`. A failed
 * read throws and keeps the last result for the next call.
 */
export function cachedCounts<T = Readonly<Record<string, number>>>(read: () => Promise<T>, clock: Clock, maxAgeMs = STORE_COUNT_CACHE_MS): () => Promise<T> {
  let cached: { readonly at: number; readonly counts: T } | undefined;
  return async () => {
    if (cached === undefined || clock.now() - cached.at >= maxAgeMs) cached = { at: clock.now(), counts: await read() };
    return cached.counts;
  };
}

/** A gauge of stored rows per status or phase, labelled `label`. */
export interface StoreCountGauge {
  readonly name: string;
  readonly help: string;
  readonly label: string;
  /** The counts, read at most every {@link STORE_COUNT_CACHE_MS}; absent = the gauge stays empty. */
  readonly read: CountReader | undefined;
  /** Every label value, each set (0 when the store has none); absent = the values the store answers. */
  readonly values?: readonly string[];
}

/**
 * Registers a gauge over a store count, read through {@link cachedCounts} at scrape time. A store
 * outage leaves the last values; msgx_status_up says the store gauges are stale.
 */
export function storeCountGauge(registry: Registry, clock: Clock, gauge: StoreCountGauge): void {
  const counts = gauge.read === undefined ? undefined : cachedCounts(gauge.read, clock);
  const { label, values } = gauge;
  new Gauge({
    name: gauge.name,
    help: gauge.help,
    labelNames: [label],
    registers: [registry],
    async collect() {
      if (counts === undefined) return;
      try {
        const byValue = await counts();
        for (const value of values ?? Object.keys(byValue)) this.set({ [label]: value }, byValue[value] ?? 0);
      } catch {
        // The last values stay.
      }
    },
  });
}
