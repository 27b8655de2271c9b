import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MAX_FLIGHT_SEARCH_LIMIT, type FlightReader } from "./flight-reader.js";
import type { FlightState } from "../model/flight-state.js";

/** What a {@link FlightReader} implementation hands the contract suite for one test. */
export interface FlightReaderFixture {
  readonly reader: FlightReader;
  /** Stores these flights as committed state (replacing any with the same FLID). */
  seed(flights: readonly FlightState[]): Promise<void>;
  close(): Promise<void>;
}

/** A flight with every distinction a store must keep: absent vs null scalars, `[]` vs absent collections, null row values. */
function contractFlight(flid: string, operationDay: string, extra: Partial<FlightState> = {}): FlightState {
  return {
    flid,
    ffid: `CZ-CZ${flid}-D-05MAR260800-D`,
    operationDay,
    stateVersion: 3,
    lastMsgId: 41,
    lastSrcDttm: "20260305064210",
    deleted: false,
    scalars: {
      ALCD: "CZ",
      FLNO: `CZ${flid}`,
      MVIN: "D",
      SODT: `${operationDay.slice(0, 4)}-${operationDay.slice(4, 6)}-${operationDay.slice(6)}T08:00`,
      FLTY: "W",
      FLIN: "D",
      ESTT: null,
      PAXC: "180",
      "FDIV@DDES": "PEK",
    },
    collections: {
      GTDT: [
        { key: "1", values: { GATE: "A22", PGOT: "2026-03-05T07:10", GTYP: null } },
        { key: "2", values: { GATE: "A25" } },
      ],
      CKDT: [],
      DELY: [{ key: "1", values: { "@CODE": "81", "@DURA": "00:25", "#text": "ATC flow" } }],
    },
    ...extra,
  };
}

/**
 * The contract every {@link FlightReader} must pass (see its guarantees). Run it in a unit spec
 * against `InMemoryFlightReader` and in an integration spec against each real adapter:
 *
 * ```ts
 * describeFlightReaderContract("pg", async () => ({ reader, seed, close }));
 * ```
 */
export function describeFlightReaderContract(name: string, factory: () => Promise<FlightReaderFixture> | FlightReaderFixture): void {
  describe(`FlightReader contract: ${name}`, () => {
    let fx: FlightReaderFixture;
    beforeEach(async () => {
      fx = await factory();
    });
    afterEach(async () => {
      await fx.close();
    });

    it("get: a FLID never stored, or not a decimal id, is not found", async () => {
      await fx.seed([contractFlight("900101", "20260305")]);
      expect(await fx.reader.get("900102")).toBeUndefined();
      expect(await fx.reader.get("not-a-flid")).toBeUndefined();
    });

    it("get: returns the flight exactly as stored, unknown and cleared kept apart", async () => {
      const live = contractFlight("900101", "20260305");
      const deleted = contractFlight("900102", "20260305", { deleted: true, stateVersion: 7, ffid: null, collections: {} });
      await fx.seed([live, deleted]);
      const got = await fx.reader.get("900101");
      expect(got).toStrictEqual(live);
      expect(got?.scalars.ESTT).toBeNull();
      expect(got?.scalars).not.toHaveProperty("ACTT");
      expect(got?.collections.CKDT).toStrictEqual([]);
      expect(got?.collections).not.toHaveProperty("ROUT");
      expect(await fx.reader.get("900102")).toStrictEqual(deleted);
    });

    it("list: ascending by FLID as a number, at most limit", async () => {
      await fx.seed(["100", "7", "99", "123456789012345678", "1000"].map((f) => contractFlight(f, "20260305")));
      const all = await fx.reader.list({ limit: 10 });
      expect(all.map((f) => f.flid)).toStrictEqual(["7", "99", "100", "1000", "123456789012345678"]);
      expect((await fx.reader.list({ limit: 2 })).map((f) => f.flid)).toStrictEqual(["7", "99"]);
      expect(all[0]).toStrictEqual(contractFlight("7", "20260305"));
    });

    it("list: paging with afterFlid visits every flight once", async () => {
      const flids = Array.from({ length: 11 }, (_, i) => String(900100 + i * 7));
      await fx.seed(flids.map((f) => contractFlight(f, "20260305")));
      const seen: string[] = [];
      let after: string | undefined;
      for (;;) {
        const page = await fx.reader.list({ limit: 3, ...(after === undefined ? {} : { afterFlid: after }) });
        if (page.length === 0) break;
        expect(page.length).toBeLessThanOrEqual(3);
        seen.push(...page.map((f) => f.flid));
        after = page[page.length - 1]!.flid;
      }
      expect(seen).toStrictEqual(flids);
      expect(await fx.reader.list({ afterFlid: "999999999", limit: 5 })).toStrictEqual([]);
    });

    it("list: filters by operation day and by deletion", async () => {
      await fx.seed([
        contractFlight("1", "20260305"),
        contractFlight("2", "20260306"),
        contractFlight("3", "20260305", { deleted: true }),
        contractFlight("4", "20260306", { deleted: true }),
      ]);
      const ids = async (q: Parameters<FlightReader["list"]>[0]) => (await fx.reader.list(q)).map((f) => f.flid);
      expect(await ids({ operationDay: "20260305", limit: 10 })).toStrictEqual(["1", "3"]);
      expect(await ids({ operationDay: "20260306", limit: 10, includeDeleted: false })).toStrictEqual(["2"]);
      expect(await ids({ limit: 10, includeDeleted: false })).toStrictEqual(["1", "2"]);
      expect(await ids({ limit: 10, includeDeleted: true })).toStrictEqual(["1", "2", "3", "4"]);
      expect(await ids({ operationDay: "20260307", limit: 10 })).toStrictEqual([]);
      expect(await ids({ operationDay: "20260306", afterFlid: "2", limit: 10 })).toStrictEqual(["4"]);
    });

    it("list: refuses a bad limit or afterFlid with RangeError", async () => {
      for (const limit of [0, -1, 1.5, 1001, Number.NaN]) {
        await expect(fx.reader.list({ limit })).rejects.toThrow(RangeError);
      }
      await expect(fx.reader.list({ limit: 5, afterFlid: "x1" })).rejects.toThrow(RangeError);
    });
    it("search: the FLID's flight first, then flight numbers starting with the text, any case, by FLNO, SODT, FLID", async () => {
      const numbered = (flid: string, flno: string | null, sodt: string, extra: Partial<FlightState> = {}) => {
        const base = contractFlight(flid, "20260305", extra);
        const { FLNO: _drop, ...rest } = base.scalars;
        return { ...base, scalars: { ...rest, SODT: sodt, ...(flno === null ? {} : { FLNO: flno }) } };
      };
      await fx.seed([
        numbered("11", "CA1234", "2026-03-06T08:00"),
        numbered("12", "CA1234", "2026-03-05T08:00"),
        numbered("13", "ca1299", "2026-03-05T07:00"),
        numbered("14", "CA123", "2026-03-07T09:00", { deleted: true }),
        numbered("15", "CZ1234", "2026-03-05T08:00"),
        numbered("16", "MU5101", "2026-03-05T08:00"),
        numbered("17", null, "2026-03-05T08:00"),
        numbered("18", "CA1234", "2026-03-05T08:00"),
        numbered("1234", "MU9", "2026-03-05T08:00"),
      ]);
      const found = async (text: string, limit = 10) => (await fx.reader.search({ text, limit })).map((f) => f.flid);
      expect(await found("ca12")).toStrictEqual(["14", "12", "18", "11", "13"]);
      expect(await found("CA1234")).toStrictEqual(["12", "18", "11"]);
      expect(await found("Ca12", 2)).toStrictEqual(["14", "12"]);
      // A FLID first, then flight numbers; never one flight twice.
      expect(await found("1234")).toStrictEqual(["1234"]);
      expect(await found("16")).toStrictEqual(["16"]);
      expect(await found("mu")).toStrictEqual(["16", "1234"]);
      expect(await found("CA9")).toStrictEqual([]);
      expect(await found("999999")).toStrictEqual([]);
      expect((await fx.reader.search({ text: "cz", limit: 1 }))[0]).toStrictEqual(numbered("15", "CZ1234", "2026-03-05T08:00"));
    });

    it("recent: newest lastMsgId first, one message's flights by FLID as text, deleted ones too, at most limit", async () => {
      await fx.seed([
        contractFlight("7", "20260305", { lastMsgId: 10 }),
        contractFlight("30", "20260305", { lastMsgId: 50 }),
        contractFlight("100", "20260305", { lastMsgId: 50 }),
        contractFlight("9", "20260305", { lastMsgId: 70, deleted: true }),
      ]);
      expect((await fx.reader.recent(10)).map((f) => f.flid)).toStrictEqual(["9", "100", "30", "7"]);
      expect((await fx.reader.recent(2)).map((f) => f.flid)).toStrictEqual(["9", "100"]);
      expect((await fx.reader.recent(1))[0]).toStrictEqual(contractFlight("9", "20260305", { lastMsgId: 70, deleted: true }));
      for (const limit of [0, 1.5, MAX_FLIGHT_SEARCH_LIMIT + 1]) await expect(fx.reader.recent(limit)).rejects.toThrow(RangeError);
    });

    it("search: refuses a bad text or limit with RangeError", async () => {
      for (const text of ["", "CA 12", "CA%", "CA_1", "x".repeat(17)]) await expect(fx.reader.search({ text, limit: 5 })).rejects.toThrow(RangeError);
      for (const limit of [0, 1.5, MAX_FLIGHT_SEARCH_LIMIT + 1]) await expect(fx.reader.search({ text: "CA", limit })).rejects.toThrow(RangeError);
    });
  });
}
