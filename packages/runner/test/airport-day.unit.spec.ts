import { decodeMessage, defaultProcessors, Pump, referenceProcessor, silentLogger } from "@msgx/core";
import { InMemoryMailbox, InMemoryPipelineStore, ManualClock } from "@msgx/core/testing";
import { describe, expect, it } from "vitest";
import { airportDay, type DemoMessage } from "../src/demo/airport-day.js";

/** The day through core's Pump on the fakes, composed as the runner composes it (pipeline-app.ts). */
async function run(day: readonly DemoMessage[]) {
  const clock = new ManualClock();
  const store = new InMemoryPipelineStore(clock);
  const mailbox = new InMemoryMailbox(clock);
  const ids = day.map((m) => mailbox.insert(m.xml));
  await store.enqueue(ids.map((msgId) => ({ msgId, receivedAt: clock.now() })), { horizon: ids.at(-1)! });
  const processors = { ...defaultProcessors({ dayStartOffsetMinutes: 0, airportUtcOffsetMinutes: 480 }), reference: referenceProcessor({ airportUtcOffsetMinutes: 480 }) };
  const pump = new Pump({ store, mailbox, clock, logger: silentLogger, decode: (raw) => decodeMessage(raw), processors, horizon: () => Number.MAX_SAFE_INTEGER }, { maxRun: 50 });
  const warnings: string[] = [];
  for (let i = 0; i < 10_000; i++) {
    const step = await pump.step();
    if (step.did === "idle") break;
    if (step.did !== "processed") throw new Error(`unexpected step ${JSON.stringify(step)}`);
    warnings.push(...(step.warnings ?? []).map((w) => `${w.msgId} ${w.code}: ${w.detail}`));
  }
  return { store, warnings, records: [...store.tables.records.values()].sort((a, b) => a.msgId - b.msgId) };
}

const typeOf = (xml: string) => `${/<TYPE>(\w+)<\/TYPE>/.exec(xml)?.[1]}/${/<STYP>(\w+)<\/STYP>/.exec(xml)?.[1]}`;

describe("the demo's airport day", () => {
  const day = airportDay({ flights: 40, updates: 600, seed: 7 });

  it("is the same day for the same seed", () => {
    expect(airportDay({ flights: 40, updates: 600, seed: 7 })).toEqual(day);
  });

  it("is written in the real upstream layout and carries the new types and subtypes", () => {
    for (const m of day.filter((x) => x.kind !== "malformed")) {
      expect(m.xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<MSG xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:noNamespaceSchemaLocation = "unisysaodbsis.xsd">')).toBe(true);
      expect(m.xml).toMatch(/<META>\n\t\t<SNDR>AODB<\/SNDR>\n\t\t<SEQN>\d+<\/SEQN>\n\t\t<DTTM>\d{14}<\/DTTM>\n\t\t<TYPE>/);
    }
    const types = new Set(day.map((m) => typeOf(m.xml)));
    for (const t of ["GLST/DNLD", "SLST/DNLD", "AIRL/DNLD", "SCHS/DNLD", "SCHD/DNLD", "FLOP/CHOT", "FLOP/SRVT", "FLOP/VIPF", "FLOP/ABTM", "FLOP/PORT", "FLOP/ESTT", "FLOP/FDEL", "LDM/NONE"]) {
      expect(types.has(t), t).toBe(true);
    }
    const timeGroup = ["TOBT", "COBT", "EOBT", "CTOT", "BOTM", "LACL", "FINT", "APPT", "IEST", "EGSR", "EGST"].filter((s) => types.has(`FLOP/${s}`));
    expect(timeGroup.length).toBeGreaterThanOrEqual(5);
    expect(day.some((m) => /<(TOBT|COBT|EOBT|CTOT|BOTM|LACL|FINT|APPT|IEST|EGSR|EGST)\/>/.test(m.xml))).toBe(true);
    expect(day.some((m) => /<CHOT CSNO="2">/.test(m.xml))).toBe(true);
  });

  it("ends every message as its kind says, on the first attempt, with no warning", async () => {
    const { records, warnings } = await run(day);
    expect(records).toHaveLength(day.length);
    const outcome = (i: number) => {
      const r = records[i]!;
      return `${r.status}${r.errorClass ? `/${r.errorClass}` : ""}`;
    };
    const want: Record<DemoMessage["kind"], RegExp> = {
      reference: /^SUCCEEDED$/,
      seasonal: /^SKIPPED$/,
      snapshot: /^SUCCEEDED$/,
      update: /^SUCCEEDED$/,
      cancel: /^SUCCEEDED$/,
      delete: /^SUCCEEDED$/,
      ignorable: /^SKIPPED$/,
      malformed: /^DEAD\/MALFORMED$/,
      duplicate: /^SKIPPED$/,
    };
    const wrong = day.flatMap((m, i) => (want[m.kind].test(outcome(i)) ? [] : [`${i + 1} ${m.kind} ${typeOf(m.xml)}: ${outcome(i)} ${records[i]!.reason ?? ""}`]));
    expect(wrong).toEqual([]);
    expect(records.filter((r) => r.attempts !== 0).map((r) => r.msgId)).toEqual([]);
    expect(records.filter((r) => r.status === "SKIPPED" && day[r.msgId - 1]!.kind === "seasonal").map((r) => r.reason)).toEqual(["ignored:SCHS"]);
    expect(warnings).toEqual([]);
  });

  it("fills the new collections of the flights it updates", async () => {
    const { store } = await run(day);
    const flights = [...store.tables.flights.values()];
    for (const c of ["CHOT", "SRVT", "VIPF", "VIPT", "ABTM", "PSDT"] as const) {
      expect(flights.some((f) => (f.collections[c]?.length ?? 0) > 0), c).toBe(true);
    }
  });
});
