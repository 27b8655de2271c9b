/**
 * The I/O side of `msgx compare`: paging `/all/flights` per operation day, the dump formats, and
 * an answer that is not the shape refused with the place it failed (never a crash later).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { FlightState } from "@msgx/core";
import { allFlightsPage, flightsOf, readFlightDump, readFlightPages, type PageReader } from "../src/compare/flight-pages.js";

const dir = mkdtempSync(join(tmpdir(), "msgx-flight-pages-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const flight = (flid: string, operationDay = "20260305") => ({ flid, operationDay, fields: { ALCD: "CZ" }, collections: { GTDT: [{ key: "1", values: { GATE: "A1" } }] } });
const FLIGHTS = [flight("1"), flight("2"), flight("3", "20260306"), flight("4", "20260306"), flight("5")];

/** `/all/flights` over `FLIGHTS` as msgx answers it: a full page names its last FLID as `next`. */
const served = (asked: string[]): PageReader => async ({ limit, operationDay, afterFlid }) => {
  asked.push(`${operationDay ?? "all"}>${afterFlid ?? ""}`);
  const page = FLIGHTS.filter((f) => (!operationDay || f.operationDay === operationDay) && (!afterFlid || Number(f.flid) > Number(afterFlid))).slice(0, limit);
  return { flights: page, next: page.length === limit ? page.at(-1)!.flid : null };
};

describe("readFlightPages", () => {
  it("pages by the cursor until next is null, once per operation day or once for all, counting flights as it goes", async () => {
    const asked: string[] = [];
    const counts: number[] = [];
    const all = await readFlightPages(served(asked), "test", { pageSize: 2, onPage: (n) => counts.push(n) });
    expect(flightsOf(all).map((f) => f.flid)).toEqual(["1", "2", "3", "4", "5"]);
    expect(asked).toEqual(["all>", "all>2", "all>4"]);
    expect(counts).toEqual([2, 4, 5]);

    asked.length = 0;
    const days = await readFlightPages(served(asked), "test", { pageSize: 2, operationDays: ["20260306", "20260305"] });
    expect(flightsOf(days).map((f) => f.flid)).toEqual(["3", "4", "1", "2", "5"]);
    expect(asked).toEqual(["20260306>", "20260306>4", "20260305>", "20260305>2"]);
  });

  it("refuses a cursor that does not move, and an answer that is not the shape, naming where", async () => {
    await expect(readFlightPages(async () => ({ flights: [flight("1")], next: "1" }), "http://old", { pageSize: 1 })).rejects.toThrow(/http:\/\/old: the page after 1 names the same cursor again/);
    for (const [answer, why] of [
      [{ rows: [] }, /not an \/all\/flights page/],
      [{ flights: [{ fid: "1" }], next: null }, /flight 0 has no flid/],
      [{ flights: [{ flid: "1", fields: [] }], next: null }, /fields that are not an object/],
      [{ flights: [{ flid: "1", collections: { GTDT: "A1" } }], next: null }, /collections that are not arrays of rows/],
      [{ flights: [{ flid: "1", collections: { GTDT: [{ values: {} }] } }], next: null }, /collections that are not arrays of rows/],
    ] as const) {
      await expect(readFlightPages(async () => answer, "http://old"), JSON.stringify(answer)).rejects.toThrow(why);
    }
  });

  it("reads numeric FLIDs and row keys as text", async () => {
    const pages = await readFlightPages(async () => ({ flights: [{ flid: 7, collections: { GTDT: [{ key: 1, values: {} }], DELY: null } }], next: null }), "test");
    expect(flightsOf(pages)).toEqual([{ flid: "7", collections: { GTDT: [{ key: "1", values: {} }], DELY: null } }]);
  });
});

describe("allFlightsPage", () => {
  it("is the page /all/flights answers: the published shape, and a full page names its last FLID as next", () => {
    const state = (flid: string): FlightState => ({ flid, ffid: null, operationDay: "20260305", stateVersion: 1, lastMsgId: 1, lastSrcDttm: "20260305020000", deleted: false, scalars: { ALCD: "CZ" }, collections: {} });
    const full = allFlightsPage([state("1"), state("2")], 2);
    expect(full.next).toBe("2");
    expect(full.flights[0]).toMatchObject({ schemaVersion: 2, flid: "1", fields: { ALCD: "CZ" }, collections: {} });
    expect(allFlightsPage([state("1")], 2).next).toBeNull();
    expect(allFlightsPage([], 2)).toEqual({ flights: [], next: null });
  });
});

describe("readFlightDump", () => {
  const write = (name: string, value: unknown) => {
    const file = join(dir, name);
    writeFileSync(file, typeof value === "string" ? value : JSON.stringify(value));
    return file;
  };

  it("takes an array of pages (what --dump writes), one page, or one merged array of flights, alike; --days keeps those days", async () => {
    const pages = await readFlightPages(served([]), "test", { pageSize: 2 });
    for (const file of [write("pages.json", pages), write("page.json", { flights: FLIGHTS, next: null }), write("merged.json", FLIGHTS)]) {
      expect(await readFlightDump(file)).toEqual(FLIGHTS);
      expect((await readFlightDump(file, ["20260306"])).map((f) => f.flid)).toEqual(["3", "4"]);
    }
  });

  it("refuses a missing file, text that is not JSON, and items that are not flights", async () => {
    await expect(readFlightDump(join(dir, "none.json"))).rejects.toMatchObject({ kind: "CONFIG", message: expect.stringMatching(/cannot read the dump .*none\.json/) });
    await expect(readFlightDump(write("bad.json", "{"))).rejects.toMatchObject({ kind: "CONFIG" });
    await expect(readFlightDump(write("numbers.json", [1, 2]))).rejects.toThrow(/item 0 is not an object/);
  });
});
