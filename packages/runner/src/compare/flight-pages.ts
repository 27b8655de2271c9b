import { readFile } from "node:fs/promises";
import { errorMessage, flightToPayload, MAX_FLIGHT_LIST_LIMIT, MsgxError, type ComparableFlight, type CursorPage, type FlightPayload, type FlightState } from "@msgx/core";

/** One answer of `GET /all/flights`: a page of flights and the cursor of the next (`null`: the last). */
export type FlightPage = CursorPage<"flights", ComparableFlight, string>;

/** The page `GET /all/flights` answers for a store's list of at most `limit` flights: a full page names its last FLID as `next`. */
export function allFlightsPage(flights: readonly FlightState[], limit: number): CursorPage<"flights", FlightPayload, string> {
  return { flights: flights.map(flightToPayload), next: flights.length === limit ? flights.at(-1)!.flid : null };
}

/** What to read: the flights of these operation days (`yyyyMMdd`), or every flight when none is given. */
export interface FlightSelection {
  readonly operationDays?: readonly string[];
  /** Flights per page, 1–1000. */
  readonly pageSize?: number;
  /** Called after every page with how many flights were read so far (the CLI's progress line). */
  readonly onPage?: (flightsSoFar: number) => void;
}

/** Reads one page: the query `GET /all/flights` takes. */
export type PageReader = (query: { readonly limit: number; readonly operationDay?: string; readonly afterFlid?: string }) => Promise<unknown>;

/**
 * Pages through `/all/flights` (over HTTP or straight from a store) for each selected day, or once
 * for all, and returns the pages as served. A cursor that does not move on is the other side's
 * fault, and an error here rather than an endless loop.
 */
export async function readFlightPages(read: PageReader, where: string, selection: FlightSelection = {}): Promise<FlightPage[]> {
  const limit = selection.pageSize ?? MAX_FLIGHT_LIST_LIMIT;
  const pages: FlightPage[] = [];
  let count = 0;
  for (const operationDay of selection.operationDays?.length ? selection.operationDays : [undefined]) {
    let afterFlid: string | undefined;
    for (;;) {
      const page = asPage(await read({ limit, ...(operationDay ? { operationDay } : {}), ...(afterFlid ? { afterFlid } : {}) }), where);
      pages.push(page);
      count += page.flights.length;
      selection.onPage?.(count);
      if (page.next === null || page.flights.length === 0) break;
      if (page.next === afterFlid) throw new MsgxError("DEPENDENCY_UNAVAILABLE", `${where}: the page after ${afterFlid} names the same cursor again`, { retriable: false });
      afterFlid = page.next;
    }
  }
  return pages;
}

/** The flights of pages, in the order read. */
export const flightsOf = (pages: readonly FlightPage[]): ComparableFlight[] => pages.flatMap((p) => p.flights);

/**
 * `GET <base>/all/flights` with `fetch`: `token` as bearer token when given, each request cut off
 * after `timeoutMs`. An answer that is not 2xx, not JSON or not the shape, a timeout or a refused
 * connection is `DEPENDENCY_UNAVAILABLE`, naming the URL. `redirect: "error"` keeps the runner's
 * own compare route from being sent on to a host nobody allowed.
 */
export function httpPageReader(base: string, options: { readonly token?: string | undefined; readonly timeoutMs: number; readonly redirect?: "follow" | "error" }): PageReader {
  return async (query) => {
    const url = new URL("all/flights", base.endsWith("/") ? base : `${base}/`);
    url.searchParams.set("limit", String(query.limit));
    if (query.operationDay) url.searchParams.set("operationDay", query.operationDay);
    if (query.afterFlid) url.searchParams.set("afterFlid", query.afterFlid);
    let res: Response;
    try {
      res = await fetch(url, {
        headers: { accept: "application/json", ...(options.token ? { authorization: `Bearer ${options.token}` } : {}) },
        redirect: options.redirect ?? "follow",
        signal: AbortSignal.timeout(options.timeoutMs),
      });
    } catch (e) {
      const why = e instanceof Error && e.name === "TimeoutError" ? `no answer in ${options.timeoutMs} ms` : causeText(e);
      throw new MsgxError("DEPENDENCY_UNAVAILABLE", `GET ${url.href}: ${why}`, { cause: e, retriable: false });
    }
    const text = await res.text();
    if (!res.ok) throw new MsgxError("DEPENDENCY_UNAVAILABLE", `GET ${url.href}: HTTP ${res.status} ${text.slice(0, 200).trim()}`, { retriable: false });
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new MsgxError("DEPENDENCY_UNAVAILABLE", `GET ${url.href}: the answer is not JSON`, { retriable: false });
    }
  };
}

/**
 * A dump of `/all/flights` (docs/operations.md "Going live"): a JSON array of pages as served
 * (`[{ "flights": [...], "next": ... }, ...]`, what `--dump` writes), one page, or one merged
 * array of flights. With `operationDays`, only the flights of those days are kept.
 */
export async function readFlightDump(file: string, operationDays?: readonly string[]): Promise<ComparableFlight[]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, "utf8"));
  } catch (e) {
    throw new MsgxError("CONFIG", `cannot read the dump ${file}: ${errorMessage(e)}`, { cause: e });
  }
  const items = Array.isArray(parsed) ? parsed : [parsed];
  const isPage = (v: unknown) => typeof v === "object" && v !== null && Array.isArray((v as { flights?: unknown }).flights);
  const flights = items.every(isPage) ? flightsOf(items.map((p) => asPage(p, file))) : items.map((f, i) => asFlight(f, `${file}: item ${i}`));
  const days = operationDays?.length ? new Set(operationDays) : undefined;
  return days ? flights.filter((f) => typeof f["operationDay"] === "string" && days.has(f["operationDay"])) : flights;
}

function asPage(value: unknown, where: string): FlightPage {
  const page = value as { flights?: unknown; next?: unknown } | null;
  if (typeof page !== "object" || page === null || !Array.isArray(page.flights)) throw new MsgxError("DEPENDENCY_UNAVAILABLE", `${where}: not an /all/flights page ({ "flights": [...], "next": ... })`, { retriable: false });
  const next = page.next === undefined || page.next === null ? null : String(page.next);
  return { flights: page.flights.map((f, i) => asFlight(f, `${where}: flight ${i}`)), next };
}

/** A flight as `compareFlights` reads it: a `flid`; `fields` an object; `collections` an object of row arrays (or null), each row with a `key`. */
function asFlight(value: unknown, where: string): ComparableFlight {
  const f = value as { flid?: unknown; fields?: unknown; collections?: unknown } | null;
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
  const isRow = (r: unknown) => isObject(r) && (typeof r["key"] === "string" || typeof r["key"] === "number") && (r["values"] === undefined || isObject(r["values"]));
  const problem = !isObject(f)
    ? "is not an object"
    : typeof f.flid !== "string" && typeof f.flid !== "number"
      ? "has no flid"
      : f.fields !== undefined && !isObject(f.fields)
        ? "has fields that are not an object"
        : f.collections !== undefined && !(isObject(f.collections) && Object.values(f.collections).every((rows) => rows === null || (Array.isArray(rows) && rows.every(isRow))))
          ? "has collections that are not arrays of rows ({ key, values })"
          : undefined;
  if (problem !== undefined) throw new MsgxError("DEPENDENCY_UNAVAILABLE", `${where} ${problem}: not the /all/flights shape`, { retriable: false });
  const flight = f as Record<string, unknown> & { flid: string | number; collections?: Record<string, { key: unknown; values?: unknown }[] | null> };
  const collections = flight.collections === undefined ? undefined : Object.fromEntries(Object.entries(flight.collections).map(([n, rows]) => [n, rows?.map((r) => ({ ...r, key: String(r.key) })) ?? null]));
  return { ...flight, flid: String(flight.flid), ...(collections !== undefined ? { collections } : {}) } as ComparableFlight;
}

function causeText(e: unknown): string {
  return e instanceof Error && e.cause instanceof Error ? `${e.message}: ${e.cause.message}` : errorMessage(e);
}
