import { fc, test as fcTest } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { decodeMessage } from "../../src/codec/xml-codec.js";
import { sameFlightContent } from "../../src/flight/flight-content.js";
import { flightFromPayload, flightToPayload, type FlightPayload } from "../../src/flight/flight-payload.js";
import type { FlightState } from "../../src/model/flight-state.js";
import type { MsgKind } from "../../src/model/msg-kind.js";
import type { Processor, ProcessorContext } from "../../src/processing/processor.js";
import { FlightHarness } from "./flight-harness.js";
import { FlightModel, type ModelMessage } from "./flight-model.js";
import { arbInvalidSnapshot, arbMessageStream, arbXmlStyle, messageToXml } from "./flight-stream.arbitraries.js";

/** Runs a stream through the real pipeline run (as SIS XML) and returns the harness. */
function run(messages: readonly ModelMessage[], style = {}, each?: (h: FlightHarness, m: ModelMessage, raw: string) => void): FlightHarness {
  const h = new FlightHarness();
  messages.forEach((m, i) => {
    const raw = messageToXml(m, i + 1, style);
    each?.(h, m, raw);
    h.send(raw);
  });
  return h;
}

describe("flight processors against the reference model", () => {
  fcTest.prop([arbMessageStream(), arbXmlStyle()], { numRuns: 200 })(
    "random SIS streams: same outcomes, same events, same final state as the model",
    (messages, style) => {
      const h = new FlightHarness();
      const model = new FlightModel();
      messages.forEach((m, i) => {
        const { record, events } = h.send(messageToXml(m, i + 1, style));
        const expected = model.apply(i + 1, m);
        expect([record.status, record.status === "SKIPPED" ? record.reason?.split(":")[0] : undefined], `message ${i + 1}`).toStrictEqual([
          expected.status,
          expected.reason,
        ]);
        expect(events.map((e) => [e.target, e.partitionKey, e.eventType, e.stateVersion])).toStrictEqual(
          expected.changed.flatMap((c) => {
            const type = c.deleted ? "TOMBSTONE" : "UPSERT";
            return [["KAFKA:msg", c.flid, type, c.version], ["KAFKA:schd", c.flid, type, c.version]];
          }),
        );
      });
      expect(Object.fromEntries(h.flights)).toStrictEqual(Object.fromEntries(model.states()));
    },
  );

  fcTest.prop([arbMessageStream()], { numRuns: 100 })(
    "the version rises by exactly one per changed flight, never without a change; one event per flight per target",
    (messages) => {
      const h = new FlightHarness();
      messages.forEach((m, i) => {
        const prior = new Map(h.flights);
        const { events } = h.send(messageToXml(m, i + 1));
        for (const [flid, after] of h.flights) {
          const was = prior.get(flid);
          if (was === after) continue;
          expect(after.stateVersion).toBe((was?.stateVersion ?? 0) + 1);
          if (was !== undefined) expect(sameFlightContent(was, after)).toBe(false);
          expect(after).toMatchObject({ lastMsgId: i + 1, lastSrcDttm: m.dttm });
        }
        for (const [flid, was] of prior) {
          const after = h.flights.get(flid)!;
          if (after.stateVersion === was.stateVersion) expect(after).toBe(was);
        }
        const keys = events.map((e) => `${e.target}|${e.partitionKey}`);
        expect(new Set(keys).size).toBe(keys.length);
      });
    },
  );

  fcTest.prop([arbMessageStream(15)], { numRuns: 100 })("the same processor input applied twice changes nothing the second time", (messages) => {
    run(messages, {}, (h, m, raw) => {
      const d = decodeMessage(raw);
      if (!d.ok) return;
      const body = d.message.body;
      const processor = h.processors[body.kind] as Processor<MsgKind> | undefined;
      if (processor === undefined) return;
      const ctx = (flights: ReadonlyMap<string, FlightState>): ProcessorContext => ({
        msgId: 999, meta: d.message.meta, now: h.now, flights, openRequests: [],
      });
      const first = processor.apply(body, ctx(h.flights));
      const after = new Map(h.flights);
      if (first.type === "applied") for (const f of first.flights) after.set(f.flid, f);
      const second = processor.apply(body, ctx(after));
      if (first.type === "applied") {
        expect(second).toMatchObject({ type: "applied", flights: [], events: [] });
      } else {
        expect(second).toStrictEqual(first);
      }
      expect(m.dttm).toBe(d.message.meta.dttm);
    });
  });

  fcTest.prop([arbMessageStream(12), arbInvalidSnapshot, arbMessageStream(6), fc.nat({ max: 2000 })], { numRuns: 100 })(
    "an invalid snapshot anywhere in a stream is DEAD(PROTOCOL) and leaves state and events exactly as before it",
    (prefix, invalid, suffix, minutes) => {
      const h = run(prefix);
      const flights = new Map(h.flights);
      const events = h.events.length;
      const dttm = `202603051${String(minutes % 10)}0000`;
      const { record } = h.send(messageToXml({ ...invalid, dttm }, prefix.length + 1));
      expect(record).toMatchObject({ status: "DEAD", errorClass: "PROTOCOL" });
      expect(h.flights).toStrictEqual(flights);
      expect(h.events).toHaveLength(events);
      // And the stream goes on as if the invalid message had never been there.
      const clean = run([...prefix, ...suffix]);
      suffix.forEach((m, i) => h.send(messageToXml(m, prefix.length + 2 + i)));
      const strip = (fs: Map<string, FlightState>) => [...fs.values()].map(({ lastMsgId: _, ...f }) => f);
      expect(strip(h.flights)).toStrictEqual(strip(clean.flights));
    },
  );

  fcTest.prop([arbMessageStream()], { numRuns: 100 })(
    "the last KAFKA:schd event per FLID is the final state; KAFKA:msg carries every version once",
    (messages) => {
      const h = run(messages);
      const lastSchd = new Map<string, (typeof h.events)[number]>();
      const msgVersions = new Map<string, number[]>();
      for (const e of h.events) {
        if (e.target === "KAFKA:schd") lastSchd.set(e.partitionKey, e);
        else msgVersions.set(e.partitionKey, [...(msgVersions.get(e.partitionKey) ?? []), e.stateVersion]);
      }
      expect([...lastSchd.keys()].sort()).toStrictEqual([...h.flights.keys()].sort());
      for (const [flid, f] of h.flights) {
        const e = lastSchd.get(flid)!;
        expect(e.stateVersion).toBe(f.stateVersion);
        if (f.deleted) expect(e).toMatchObject({ eventType: "TOMBSTONE", payload: null });
        else expect(e).toMatchObject({ eventType: "UPSERT", payload: flightToPayload(f) });
        expect(msgVersions.get(flid)).toStrictEqual(Array.from({ length: f.stateVersion }, (_, i) => i + 1));
      }
    },
  );

  fcTest.prop([arbMessageStream()], { numRuns: 100 })("a payload survives JSON and maps back to the same state", (messages) => {
    for (const f of run(messages).flights.values()) {
      const json = JSON.parse(JSON.stringify(flightToPayload(f))) as FlightPayload;
      expect(flightFromPayload(json)).toStrictEqual(f);
    }
  });
});
