import { describe, expect, it } from "vitest";
import { emptyRunDecision, type FlightState } from "@msgx/core";
import { LeaderMemory } from "@msgx/core/testing";
import { flight } from "./flight-fixture.js";

const HOUR = 3_600_000;
const loaded = (generation: number, flights: FlightState[] = [], owners: [string, { msgId: number; contentHash: string | null; boundAt?: number }][] = []) => ({
  generation,
  flights: new Map(flights.map((f) => [f.flid, f])),
  owners: new Map(owners),
});

describe("LeaderMemory", () => {
  it("holds what a load gave (absent FLIDs as absent), for one generation: another generation drops the rest", () => {
    const m = new LeaderMemory();
    expect(m.missingFlights(["a"])).toEqual(["a"]);
    m.adopt(loaded(3, [flight("a")]), ["a", "b"], 0);
    expect([m.generation, m.missingFlights(["a", "b", "c"])]).toEqual([3, ["c"]]);
    expect([...m.flights(["a", "b"]).keys()]).toEqual(["a"]);
    m.adopt(loaded(4, [flight("c")]), ["c"], 0);
    expect([m.generation, m.missingFlights(["a", "b", "c"])]).toEqual([4, ["a", "b"]]);
    m.drop();
    expect([m.generation, m.sizes]).toEqual([undefined, { flights: 0, identities: 0 }]);
  });

  it("changes after a commit only: the run's flights and bindings, bound at the run's now", () => {
    const m = new LeaderMemory();
    m.committed({ ...emptyRunDecision, flights: [flight("a")] }, 0);
    expect(m.sizes.flights).toBe(0);
    m.adopt(loaded(1), [], 0);
    m.committed({ ...emptyRunDecision, flights: [flight("a", 2)], bindings: [{ identityKey: "K", msgId: 7, contentHash: "h" }] }, 50);
    expect(m.flights(["a"]).get("a")?.stateVersion).toBe(2);
    expect(m.owners(["K"], 60)).toEqual(new Map([["K", { msgId: 7, contentHash: "h", boundAt: 50 }]]));
  });

  it("keeps at most maxFlights and maxIdentities, the least recently used leaving first", () => {
    const m = new LeaderMemory({ maxFlights: 2, maxIdentities: 2 });
    m.adopt(loaded(1, [flight("a"), flight("b")]), ["a", "b"], 0);
    m.flights(["a"]);
    m.adopt(loaded(1, [flight("c")]), ["c"], 0);
    expect(m.missingFlights(["a", "b", "c"])).toEqual(["b"]);
    m.committed({ ...emptyRunDecision, bindings: ["K1", "K2", "K3"].map((identityKey, i) => ({ identityKey, msgId: i + 1 })) }, 0);
    expect([...m.owners(["K1", "K2", "K3"], 0).keys()]).toEqual(["K2", "K3"]);
    expect(m.sizes).toEqual({ flights: 2, identities: 2 });
  });

  it("holds identity owners inside the dedupe window only", () => {
    const m = new LeaderMemory({}, 10 * HOUR);
    m.adopt(loaded(1, [], [["OLD", { msgId: 1, contentHash: null, boundAt: 0 }], ["NEW", { msgId: 2, contentHash: null, boundAt: 5 * HOUR }], ["UNDATED", { msgId: 3, contentHash: null }]]), [], 11 * HOUR);
    expect([...m.owners(["OLD", "NEW", "UNDATED"], 11 * HOUR).keys()]).toEqual(["NEW", "UNDATED"]);
    // A later commit sweeps the owners the window left behind, looked up or not.
    m.committed({ ...emptyRunDecision, bindings: [{ identityKey: "K", msgId: 4 }] }, 16 * HOUR);
    expect(m.entries().owners.has("NEW")).toBe(false);
    expect([...m.entries().owners.keys()].sort()).toEqual(["K", "UNDATED"]);
  });

  it("holds flights of the open operation days only: a closed day's flight is used by its run, not kept, and leaves at the sweep", () => {
    // Airport UTC+8; 2026-03-06 10:00 local. With one open day before today, 0305 is open and 0304 closed.
    const at = (day: number, hour: number) => Date.UTC(2026, 2, day, hour - 8);
    const dated = (flid: string, operationDay: string): FlightState => ({ ...flight(flid), operationDay });
    const m = new LeaderMemory({ openDays: 1, airportUtcOffsetMinutes: 480 });
    m.adopt(loaded(1, [dated("old", "20260304"), dated("yday", "20260305"), dated("next", "20260307")]), ["old", "yday", "next", "none"], at(6, 10));
    expect(m.missingFlights(["old", "yday", "next", "none"])).toEqual(["old"]);
    // A commit of a closed day's flight lets go of it too.
    m.committed({ ...emptyRunDecision, flights: [dated("old", "20260304")] }, at(6, 11));
    expect(m.missingFlights(["old"])).toEqual(["old"]);
    // The next local day closes 0305 as well: the sweep takes its flight, looked up or not.
    m.committed({ ...emptyRunDecision, flights: [dated("new", "20260307")] }, at(7, 0) + 60_000);
    expect(m.missingFlights(["old", "yday", "next", "none", "new"])).toEqual(["old", "yday"]);
    expect(m.sizes.flights).toBe(3);
  });

  it("counts the open days from the operation day now falls in (airport.dayStartOffsetMinutes)", () => {
    // Airport UTC+8, the operation day starts at 04:00: at 02:00 local on the 7th it is still operation day 0306.
    const at = (day: number, hour: number) => Date.UTC(2026, 2, day, hour - 8);
    const dated = (flid: string, operationDay: string): FlightState => ({ ...flight(flid), operationDay });
    const flights = [dated("d4", "20260304"), dated("d5", "20260305"), dated("d6", "20260306")];
    const fromFour = new LeaderMemory({ openDays: 1, airportUtcOffsetMinutes: 480, dayStartOffsetMinutes: 240 });
    fromFour.adopt(loaded(1, flights), ["d4", "d5", "d6"], at(7, 2));
    expect(fromFour.missingFlights(["d4", "d5", "d6"])).toEqual(["d4"]);
    // From midnight, the same memory without the offset has closed 0305 already.
    const fromMidnight = new LeaderMemory({ openDays: 1, airportUtcOffsetMinutes: 480 });
    fromMidnight.adopt(loaded(1, flights), ["d4", "d5", "d6"], at(7, 2));
    expect(fromMidnight.missingFlights(["d4", "d5", "d6"])).toEqual(["d4", "d5"]);
  });
});
