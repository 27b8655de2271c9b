import { describe, expect, it } from "vitest";
import { decodeMessage } from "../../src/codec/xml-codec.js";
import { defaultProcessors } from "../../src/flight/default-processors.js";
import { flightToPayload } from "../../src/flight/flight-payload.js";
import type { FlightState } from "../../src/model/flight-state.js";
import { InMemoryFlightReader } from "../../src/flight/in-memory-flight-reader.js";
import type { OutboxEventDraft } from "../../src/outbox/outbox-event.js";
import type { OpenRequest } from "../../src/requests/open-request.js";
import { Pump } from "../../src/processing/pump.js";
import { silentLogger } from "../../src/runtime/logger.js";
import { InMemoryMailbox } from "../../src/ports/in-memory-mailbox.js";
import { InMemoryPipelineStore } from "../../src/processing/in-memory-pipeline-store.js";
import { ManualClock } from "../../src/runtime/manual-clock.js";
import { FlightHarness, sisFixture } from "./flight-harness.js";

const DNLD = "01-schd-dnld-3-flights.xml";
const RESP = "02-schd-resp.xml";
const GATE = "03-flop-gtdt-gate-change.xml";
const ESTT = "04-flop-estt.xml";
const FDEL = "05-flop-fdel.xml";
const LDM = "06-ldm-ignored.xml";

const bookkeeping = (stateVersion: number, lastMsgId: number, lastSrcDttm: string) => ({ stateVersion, lastMsgId, lastSrcDttm });

// The three flights of the DNLD fixture, written out by hand from the XML (times as ISO local).
const CZ3101: FlightState = {
  flid: "900101",
  ffid: null,
  operationDay: "20260305",
  ...bookkeeping(1, 1, "20260305020000"),
  deleted: false,
  scalars: {
    ALCD: "CZ", FLNO: "CZ3101", MVIN: "D", SODT: "2026-03-05T08:00", FLTY: "W", FLIN: "D",
    ACFT: "333", RENO: "B5948", TRML: "T2", STND: "A112",
  },
  collections: {
    ROUT: [{ key: "1", values: { APCD: "PEK", SCAT: "2026-03-05T11:10" } }],
    ERUT: [
      { key: "1", values: { APCD: "CAN", SCDT: "2026-03-05T08:00" } },
      { key: "2", values: { APCD: "PEK", SCAT: "2026-03-05T11:10" } },
    ],
    PSDT: [{ key: "1", values: { PSST: "A112", STST: "2026-03-05T06:20", STET: "2026-03-05T08:15" } }],
    GTDT: [{ key: "1", values: { GATE: "A22", PGOT: "2026-03-05T07:10", PGCT: "2026-03-05T07:45", GTYP: "D" } }],
    CKDT: [
      { key: "1", values: { CHKC: "C01", CCLS: "F", PCOT: "2026-03-05T06:00", PCCT: "2026-03-05T07:20", CTYP: "D" } },
      { key: "2", values: { CHKC: "C02", CCLS: "Y", PCOT: "2026-03-05T06:00", PCCT: "2026-03-05T07:20", CTYP: "D" } },
    ],
    CHDT: [{ key: "1", values: { CHUT: "M07", PCBT: "2026-03-05T06:00", PCET: "2026-03-05T07:40", CTYP: "D" } }],
  },
};

const MF1571: FlightState = {
  flid: "900102",
  ffid: null,
  operationDay: "20260305",
  ...bookkeeping(1, 1, "20260305020000"),
  deleted: false,
  scalars: {
    ALCD: "MF", FLNO: "MF1571", MVIN: "D", SODT: "2026-03-05T08:00", FLTY: "W", FLIN: "D",
    ACFT: "333", CSOP: "CZ", CSFT: "CZ3101", MAID: "900101",
  },
  collections: {},
};

const CZ3540: FlightState = {
  flid: "900103",
  ffid: null,
  operationDay: "20260305",
  ...bookkeeping(1, 1, "20260305020000"),
  deleted: false,
  scalars: {
    ALCD: "CZ", FLNO: "CZ3540", MVIN: "A", SODT: "2026-03-05T14:15", FLTY: "W", FLIN: "D",
    ACFT: "321", RENO: "B6631", TAOP: "CZ", TAFL: "CZ3541", TAID: "900104", ESTT: "2026-03-05T14:40", FTSS: "DELAY",
  },
  collections: {
    ROUT: [{ key: "1", values: { APCD: "SHA", SCDT: "2026-03-05T12:05" } }],
    DELY: [{ key: "81", values: { "@CODE": "81", "@STRT": "2026-03-05T12:05", "@DURA": "00:25", "#text": "ATC flow" } }],
    CLDT: [{ key: "1", values: { BELT: "B05", PCOT: "2026-03-05T14:40", PCCT: "2026-03-05T15:30", BTYP: "D" } }],
  },
};

/** The two events a changed flight must yield. */
function upserts(state: FlightState, sourceMsgId: number): OutboxEventDraft[] {
  const common = { partitionKey: state.flid, eventType: "UPSERT" as const, stateVersion: state.stateVersion, sourceMsgId };
  return [
    { target: "KAFKA:msg", ...common, payload: flightToPayload(state) },
    { target: "KAFKA:schd", ...common, payload: flightToPayload(state) },
  ];
}

// The RQFD the RESP fixture answers: 06MAR26, sent 05MAR 09:00 airport time (01:00Z).
const RQFD_06MAR: OpenRequest = {
  requestId: "rq-1",
  kind: "RQFD",
  from: "2026-03-06T00:00",
  to: "2026-03-06T23:59",
  sentAt: Date.UTC(2026, 2, 5, 1, 0, 0),
};

describe("flight processors over the shared SIS fixtures", () => {
  it("DNLD of 3 flights stores 3 flights at version 1 and yields 6 events, msg before schd per flight", () => {
    const h = new FlightHarness();
    const { record, events } = h.send(sisFixture(DNLD));
    expect(record).toMatchObject({ status: "SUCCEEDED", reason: null });
    expect(Object.fromEntries(h.flights)).toStrictEqual({ "900101": CZ3101, "900102": MF1571, "900103": CZ3540 });
    expect(events).toStrictEqual([...upserts(CZ3101, 1), ...upserts(MF1571, 1), ...upserts(CZ3540, 1)]);
  });

  it("the event payload of a flight is the documented JSON (docs/events.md)", () => {
    const h = new FlightHarness();
    const { events } = h.send(sisFixture(DNLD));
    expect(JSON.parse(JSON.stringify(events[2]?.payload))).toStrictEqual({
      schemaVersion: 2,
      flid: "900102",
      ffid: null,
      operationDay: "20260305",
      stateVersion: 1,
      deleted: false,
      lastMsgId: 1,
      lastSrcDttm: "20260305020000",
      fields: {
        ALCD: "MF", FLNO: "MF1571", MVIN: "D", SODT: "2026-03-05T08:00", FLTY: "W", FLIN: "D",
        ACFT: "333", CSOP: "CZ", CSFT: "CZ3101", MAID: "900101",
      },
      collections: {},
    });
  });

  it("a gate change replaces the whole GTDT set and pins the FFID", () => {
    const h = new FlightHarness();
    h.send(sisFixture(DNLD));
    const { record, events } = h.send(sisFixture(GATE));
    const expected: FlightState = {
      ...CZ3101,
      ...bookkeeping(2, 2, "20260305064210"),
      ffid: "CZ-CZ3101-D-05MAR260800-D",
      collections: {
        ...CZ3101.collections,
        GTDT: [{ key: "1", values: { GATE: "A25", PGOT: "2026-03-05T07:10", PGCT: "2026-03-05T07:45", GTYP: "D" } }],
      },
    };
    expect(record.status).toBe("SUCCEEDED");
    expect(h.flights.get("900101")).toStrictEqual(expected);
    expect(events).toStrictEqual(upserts(expected, 2));
    expect(h.flights.get("900102")).toStrictEqual(MF1571);
    expect(h.flights.get("900103")).toStrictEqual(CZ3540);
  });

  it("an ESTT update changes ESTT only", () => {
    const h = new FlightHarness();
    h.send(sisFixture(DNLD));
    const { events } = h.send(sisFixture(ESTT));
    const expected: FlightState = {
      ...CZ3540,
      ...bookkeeping(2, 2, "20260305131002"),
      ffid: "CZ-CZ3540-A-05MAR261415-D",
      scalars: { ...CZ3540.scalars, ESTT: "2026-03-05T14:52" },
    };
    expect(h.flights.get("900103")).toStrictEqual(expected);
    expect(events).toStrictEqual(upserts(expected, 2));
  });

  it("FDEL keeps the flight as a deleted tombstone and yields a msg tombstone with the state and a null schd tombstone", () => {
    const h = new FlightHarness();
    h.send(sisFixture(DNLD));
    const { record, events } = h.send(sisFixture(FDEL));
    const expected: FlightState = { ...MF1571, ...bookkeeping(2, 2, "20260305071500"), ffid: "MF-MF1571-D-05MAR260800-D", deleted: true };
    expect(record.status).toBe("SUCCEEDED");
    expect(h.flights.get("900102")).toStrictEqual(expected);
    const common = { partitionKey: "900102", eventType: "TOMBSTONE", stateVersion: 2, sourceMsgId: 2 };
    expect(events).toStrictEqual([
      { target: "KAFKA:msg", ...common, payload: flightToPayload(expected) },
      { target: "KAFKA:schd", ...common, payload: null },
    ]);
    // Deleting again changes nothing and says why.
    const again = h.send(sisFixture(FDEL).replace("<SEQN>480611</SEQN>", "<SEQN>480612</SEQN>"));
    expect(again.record).toMatchObject({ status: "SUCCEEDED", reason: "already-deleted:900102" });
    expect(again.events).toStrictEqual([]);
    expect(h.flights.get("900102")).toStrictEqual(expected);
  });

  it("an LDM is SKIPPED and changes nothing", () => {
    const h = new FlightHarness();
    h.send(sisFixture(DNLD));
    const before = new Map(h.flights);
    const { record, events } = h.send(sisFixture(LDM));
    expect(record).toMatchObject({ status: "SKIPPED", reason: "ignored:LDM" });
    expect(events).toStrictEqual([]);
    expect(h.flights).toStrictEqual(before);
  });

  it("all six in mailbox order: final states and the whole event log", () => {
    const h = new FlightHarness();
    const outcomes = [DNLD, RESP, GATE, ESTT, FDEL, LDM].map((f) => h.send(sisFixture(f)).record).map((r) => [r.status, r.reason]);
    expect(outcomes).toStrictEqual([
      ["SUCCEEDED", null],
      ["SKIPPED", "no-request"],
      ["SUCCEEDED", null],
      ["SUCCEEDED", null],
      ["SUCCEEDED", null],
      ["SKIPPED", "ignored:LDM"],
    ]);
    expect([...h.flights.keys()].sort()).toStrictEqual(["900101", "900102", "900103"]);
    expect(h.events.map((e) => [e.target, e.partitionKey, e.eventType, e.stateVersion, e.sourceMsgId])).toStrictEqual([
      ["KAFKA:msg", "900101", "UPSERT", 1, 1],
      ["KAFKA:schd", "900101", "UPSERT", 1, 1],
      ["KAFKA:msg", "900102", "UPSERT", 1, 1],
      ["KAFKA:schd", "900102", "UPSERT", 1, 1],
      ["KAFKA:msg", "900103", "UPSERT", 1, 1],
      ["KAFKA:schd", "900103", "UPSERT", 1, 1],
      ["KAFKA:msg", "900101", "UPSERT", 2, 3],
      ["KAFKA:schd", "900101", "UPSERT", 2, 3],
      ["KAFKA:msg", "900103", "UPSERT", 2, 4],
      ["KAFKA:schd", "900103", "UPSERT", 2, 4],
      ["KAFKA:msg", "900102", "TOMBSTONE", 2, 5],
      ["KAFKA:schd", "900102", "TOMBSTONE", 2, 5],
    ]);
  });

  describe("RESP", () => {
    it("with no open request is SKIPPED no-request and changes nothing", () => {
      const h = new FlightHarness();
      expect(h.send(sisFixture(RESP)).record).toMatchObject({ status: "SKIPPED", reason: "no-request" });
      expect(h.flights.size).toBe(0);
    });

    it("answering an RQFD sent before its DTTM stores the flight with its own operation day", () => {
      const h = new FlightHarness();
      const { record, events } = h.send(sisFixture(RESP), [RQFD_06MAR]);
      const expected: FlightState = {
        flid: "900201",
        ffid: null,
        operationDay: "20260306",
        ...bookkeeping(1, 1, "20260305091620"),
        deleted: false,
        scalars: { ALCD: "CZ", FLNO: "CZ3102", MVIN: "A", SODT: "2026-03-06T09:30", FLTY: "W", FLIN: "D", ACFT: "333" },
        collections: {},
      };
      expect(record.status).toBe("SUCCEEDED");
      expect(h.flights.get("900201")).toStrictEqual(expected);
      expect(events).toStrictEqual(upserts(expected, 1));
    });

    it("matches by instant: DTTM 09:16:20 at +08:00 is 01:16:20Z", () => {
      const at = (sentAt: number) => new FlightHarness().send(sisFixture(RESP), [{ ...RQFD_06MAR, sentAt }]).record.reason;
      expect(at(Date.UTC(2026, 2, 5, 1, 16, 20))).toBeNull();
      expect(at(Date.UTC(2026, 2, 5, 1, 16, 21))).toBe("no-request");
      const utc = new FlightHarness({ airportUtcOffsetMinutes: 0 });
      expect(utc.send(sisFixture(RESP), [{ ...RQFD_06MAR, sentAt: Date.UTC(2026, 2, 5, 9, 16, 20) }]).record.status).toBe("SUCCEEDED");
    });

    it("ignores an open RQRD, and refuses records outside the matched request's range as PROTOCOL", () => {
      const h = new FlightHarness();
      const rqrd: OpenRequest = { requestId: "rq-2", kind: "RQRD", rtype: "ARPT", sentAt: 0 };
      expect(h.send(sisFixture(RESP), [rqrd]).record.reason).toBe("no-request");
      const narrow = { ...RQFD_06MAR, to: "2026-03-06T09:29" };
      const r = h.send(sisFixture(RESP).replace("480377", "480378"), [narrow]).record;
      expect(r).toMatchObject({ status: "DEAD", errorClass: "PROTOCOL" });
      expect(r.reason).toContain("outside request rq-1");
      expect(h.flights.size).toBe(0);
    });
  });

  it("through the Pump with the in-memory store: the same states and events as the run decisions", async () => {
    const clock = new ManualClock();
    const mailbox = new InMemoryMailbox(clock);
    const store = new InMemoryPipelineStore(clock);
    const ids = [DNLD, GATE, ESTT, FDEL, LDM].map((f) => mailbox.insert(sisFixture(f)));
    await store.enqueue(ids.map((msgId) => ({ msgId, receivedAt: clock.now() })), { horizon: Math.max(...ids) });
    const pump = new Pump({
      store,
      mailbox,
      clock,
      logger: silentLogger,
      decode: (raw) => decodeMessage(raw),
      processors: defaultProcessors(),
      horizon: () => Math.max(...ids),
    });
    for (let i = 0; i < 10 && (await pump.step()).did === "processed"; i++);
    const h = new FlightHarness();
    for (const f of [DNLD, GATE, ESTT, FDEL, LDM]) h.send(sisFixture(f));
    expect(Object.fromEntries(store.tables.flights)).toStrictEqual(Object.fromEntries(h.flights));
    expect(store.tables.events.map(({ target, partitionKey, eventType, stateVersion, payload, sourceMsgId }) => ({ target, partitionKey, eventType, stateVersion, payload, sourceMsgId }))).toStrictEqual(h.events);
    const reader = new InMemoryFlightReader(store);
    expect(await reader.get("900102")).toMatchObject({ deleted: true, stateVersion: 2 });
    expect((await reader.list({ limit: 10, includeDeleted: false })).map((f) => f.flid)).toStrictEqual(["900101", "900103"]);
  });
});
