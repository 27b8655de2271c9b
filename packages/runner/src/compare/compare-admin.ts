import { compareFlights, type FlightState } from "@msgx/core";
import type { CompareAdmin } from "../http/http-context.js";
import { comparisonJson } from "./comparison-report.js";
import { allFlightsPage, flightsOf, httpPageReader, readFlightPages } from "./flight-pages.js";

/** What the runner compares as `ours`: its own flights as `/all/flights` serves them, read from the store. */
export type OwnFlights = (query: { readonly limit: number; readonly operationDay?: string; readonly afterFlid?: string }) => Promise<readonly FlightState[]>;

/**
 * The comparison behind `/admin/compare`: this runner's flights straight from its store, the other
 * system's over HTTP with `compare.timeoutMs` per page. Both sides read at once.
 */
export function createCompareAdmin(settings: { readonly against: readonly string[]; readonly timeoutMs: number }, own: OwnFlights): CompareAdmin {
  return {
    targets: () => settings.against,
    compare: async (against, { operationDays, ignore }) => {
      const ownPage = async (q: Parameters<OwnFlights>[0]) => allFlightsPage(await own(q), q.limit);
      const [ours, theirs] = await Promise.all([
        readFlightPages(ownPage, "this runner", { operationDays }),
        readFlightPages(httpPageReader(against, { timeoutMs: settings.timeoutMs, redirect: "error" }), against, { operationDays }),
      ]);
      return comparisonJson(compareFlights(flightsOf(ours), flightsOf(theirs), ignore), { ours: "this runner", theirs: against, operationDays });
    },
  };
}
