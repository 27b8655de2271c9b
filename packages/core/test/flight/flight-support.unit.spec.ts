import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { canonicalContent, compareRowKeys, sameFlightContent, type FlightContent } from "../../src/flight/flight-content.js";
import { flightEvents } from "../../src/flight/flight-events.js";
import { flightToPayload } from "../../src/flight/flight-payload.js";
import type { FlightState } from "../../src/model/flight-state.js";
import { dttmToEpochMs, matchScheduleRequest, withinRequest } from "../../src/flight/request-match.js";
import type { OpenRequest } from "../../src/requests/open-request.js";

const base: FlightState = {
  flid: "1",
  ffid: null,
  operationDay: "20260305",
  stateVersion: 2,
  lastMsgId: 7,
  lastSrcDttm: "20260305020000",
  deleted: false,
  scalars: { ALCD: "CZ", ESTT: null },
  collections: { GTDT: [{ key: "2", values: { GATE: "B" } }, { key: "1", values: { GATE: "A" } }] },
};

describe("flight content", () => {
  it("keeps unknown and cleared apart, and ignores bookkeeping, key order and row order", () => {
    const { ESTT: _, ...noEstt } = base.scalars;
    expect(sameFlightContent(base, { ...base, scalars: noEstt })).toBe(false);
    expect(sameFlightContent(base, { ...base, collections: { ...base.collections, CKDT: [] } })).toBe(false);
    const rebooked: FlightState = { ...base, stateVersion: 9, lastMsgId: 1, lastSrcDttm: "x" };
    expect(sameFlightContent(base, rebooked)).toBe(true);
    expect(sameFlightContent(base, { ...base, scalars: { ESTT: null, ALCD: "CZ" }, collections: { GTDT: [...base.collections.GTDT!].reverse() } })).toBe(true);
    expect(sameFlightContent(base, { ...base, deleted: true })).toBe(false);
  });

  // Small alphabets so that equal contents (in another order) are drawn often.
  const arbValue = fc.constantFrom("A", "B", null);
  const arbRows = fc.array(
    fc.record({ key: fc.constantFrom("1", "2", "10", "x"), values: fc.dictionary(fc.constantFrom("GATE", "GTOT", "ZZZ", "AAA"), arbValue, { maxKeys: 3 }) }),
    { maxLength: 3 },
  );
  const arbContent: fc.Arbitrary<FlightContent> = fc.record({
    ffid: fc.constantFrom("F1", null),
    operationDay: fc.constant("20260305"),
    deleted: fc.boolean(),
    scalars: fc.dictionary(fc.constantFrom("ALCD", "ESTT", "STND", "NOT_A_SCALAR"), arbValue, { maxKeys: 3 }),
    collections: fc.dictionary(fc.constantFrom("GTDT", "CKDT", "NOT_A_COLLECTION"), arbRows, { maxKeys: 2 }),
  }) as fc.Arbitrary<FlightContent>;
  const asText = (c: FlightContent) => JSON.stringify(canonicalContent(c));

  test.prop([arbContent, arbContent, fc.boolean(), fc.boolean()], { numRuns: 500 })(
    "says equal exactly when the canonical forms' JSON texts are, given raw or canonical objects",
    (a, b, canonicalA, canonicalB) => {
      const [x, y] = [canonicalA ? canonicalContent(a) : a, canonicalB ? canonicalContent(b) : b];
      expect(sameFlightContent(x, y)).toBe(asText(a) === asText(b));
      expect(sameFlightContent(x, x)).toBe(true);
      // A canonical object is given back as it is, and stays equal to a fresh canonical form.
      const once = canonicalContent(x);
      expect(canonicalContent(once).scalars).toBe(once.scalars);
      expect(canonicalContent(once).collections).toBe(once.collections);
      expect(asText(once)).toBe(asText(a));
    },
  );

  it("orders row keys numerically, non-numeric keys after", () => {
    expect(["10", "b", "2", "a", "1"].sort(compareRowKeys)).toStrictEqual(["1", "2", "10", "a", "b"]);
  });
});

describe("flight events", () => {
  it("honours configured targets; payload rows come sorted", () => {
    const [msg, schd] = flightEvents(base, 7, { msgTopicTarget: "KAFKA:flights", schdTarget: "KAFKA:latest" });
    expect(msg).toMatchObject({ target: "KAFKA:flights", partitionKey: "1", eventType: "UPSERT", stateVersion: 2, sourceMsgId: 7 });
    expect(schd).toMatchObject({ target: "KAFKA:latest", payload: msg?.payload });
    expect(flightToPayload(base).collections.GTDT?.map((r) => r.key)).toStrictEqual(["1", "2"]);
  });
});

describe("RESP matching", () => {
  const rq = (requestId: string, sentAt: number, kind: OpenRequest["kind"] = "RQFD"): OpenRequest => ({ requestId, kind, sentAt });

  it("turns a local DTTM into an instant at the airport's offset", () => {
    expect(dttmToEpochMs("20260305091620", 480)).toBe(Date.UTC(2026, 2, 5, 1, 16, 20));
    expect(dttmToEpochMs("20260101003000", 480)).toBe(Date.UTC(2025, 11, 31, 16, 30, 0));
    expect(dttmToEpochMs("2026030509162", 480)).toBeUndefined();
  });

  it("picks the most recently sent open RQFD at or before the reply", () => {
    const at = Date.UTC(2026, 2, 5, 1, 16, 20);
    expect(matchScheduleRequest([rq("a", at - 5000), rq("b", at - 1000), rq("c", at + 1), rq("d", at, "RQRD")], "20260305091620", 480)?.requestId).toBe("b");
    expect(matchScheduleRequest([rq("c", at + 1)], "20260305091620", 480)).toBeUndefined();
  });

  it("bounds a request's range inclusively; an open side does not bound", () => {
    const r: OpenRequest = { ...rq("a", 0), from: "2026-03-06T00:00", to: "2026-03-06T23:59" };
    expect([withinRequest(r, "2026-03-06T00:00"), withinRequest(r, "2026-03-06T23:59"), withinRequest(r, "2026-03-07T00:00")]).toStrictEqual([true, true, false]);
    expect(withinRequest(rq("b", 0), "1999-01-01T00:00")).toBe(true);
  });
});
