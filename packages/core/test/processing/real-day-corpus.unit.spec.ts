import { beforeAll, describe, expect, it } from "vitest";
import { COLLECTION_NAMES, REFERENCE_SCHEMAS, SCALAR_NAMES } from "@msgx/core/testing";
import { FLOP_MATRIX, INDEXED_SCALARS, Pump, silentLogger } from "@msgx/core";
import type { XmlElement } from "../../src/codec/xml-tree.js";
import { InMemoryMailbox, InMemoryPipelineStore, InMemoryReferenceReader, ManualClock } from "@msgx/core/testing";
import {
  driveToTerminal,
  failures,
  loadCorpus,
  MANIFEST,
  parseCorpusXml,
  realDayPipeline,
  runCorpusOnPump,
  walkValues,
  type CorpusStateView,
  type CorpusVerdict,
} from "../fixtures/real-day/corpus.js";

const fakeView = (store: InMemoryPipelineStore): CorpusStateView => {
  const refs = new InMemoryReferenceReader(store.tables.requestTables);
  return { flight: async (flid) => store.tables.flights.get(flid), reference: (rtype, rkey) => refs.get(rtype, rkey) };
};

const REFERENCE_TYPES = "SLST GLST BLST CLST TLST ABDG CHLT PLST AIRC REGN AIRL ARPT CITY COUL REGL ABNR DLYL HLTR ORGN STTS FLTL VIPL VIPS".split(" ");
const FLOP_SUBTYPES = (
  "APPT BOTM CNCL COBT CTOT EGSR EGST EOBT FINT IEST LACL NAAT NEAT PADT PEDT TOBT ESTT ACTT " +
  "ACFT FLIN FLTY FTSS MAXP REMC RENO RUNW STND TRML PAXC EXSS HNAG VIPP TAOP PORT FDIV FRET FLAB " +
  "PSDT GTDT CKDT CLDT CHDT CHOT ABTM ROUT ERUT DELY SRVT VIPF PSHT TIPT FDEL"
).split(" ");

describe("the real-day corpus itself", () => {
  const corpus = loadCorpus();
  const metaOf = (raw: string) => {
    const meta = parseCorpusXml(raw).children.find((c) => c.name === "META")!;
    return meta.children.map((c) => [c.name, c.text.trim()] as const);
  };

  it("is in the real upstream layout: declaration, xsi root attributes, META SNDR SEQN DTTM TYPE STYP in order, SNDR AODB, 14-digit DTTM", () => {
    for (const m of corpus) {
      expect(m.raw.startsWith('<?xml version="1.0" encoding="UTF-8"?>'), m.file).toBe(true);
      expect(m.raw, m.file).toMatch(/<MSG xmlns:xsi="http:\/\/www\.w3\.org\/2001\/XMLSchema-instance" xsi:noNamespaceSchemaLocation ?= ?"unisysaodbsis\.xsd">/);
      const meta = metaOf(m.raw);
      expect(meta.map(([n]) => n), m.file).toEqual(["SNDR", "SEQN", "DTTM", "TYPE", "STYP"]);
      expect(meta[0]![1], m.file).toBe("AODB");
      expect(meta[2]![1], m.file).toMatch(/^\d{14}$/);
    }
  });

  it("carries the upstream quirks: tabs, mixed indentation, spaces around =, CRLF, self-closing clears, Chinese text", () => {
    const all = corpus.map((m) => m.raw).join("\n");
    expect(all).toMatch(/\n\t\t</);
    expect(all).toMatch(/\n {4}</);
    expect(all).toMatch(/\n\t {2}</);
    expect(all).toMatch(/[A-Z]+ = "/);
    expect(all).toMatch(/\r\n/);
    expect(all).toMatch(/<TOBT\/>/);
    expect(all).toMatch(/DDES=""/);
    expect(all).toMatch(/[\u4e00-\u9fff]/);
  });

  it("is a plausible day: DTTM never goes back (but for the identical resend)", () => {
    const resent = (e: (typeof corpus)[number]["entry"]) => e.reason !== undefined && !(e.reason instanceof RegExp) && !e.reason.contentDiffers;
    const ordered = corpus.filter((m) => !resent(m.entry)).map((m) => metaOf(m.raw)[2]![1]);
    expect([...ordered].sort()).toEqual(ordered);
  });

  it("holds at least one message per TYPE and subtype the upstream sends (WIRE.md Kinds, FLOP subtypes, Reference data)", () => {
    const kinds = new Set(corpus.map((m) => metaOf(m.raw)).map((meta) => `${meta[3]![1]}/${meta[4]![1]}`));
    const want = [
      ...REFERENCE_TYPES.map((t) => `${t}/DNLD`),
      "GLST/ADD",
      "SLST/UPD",
      "ARPT/DEL",
      ...["DNLD", "RESP", "ADFT", "ADD", "UPD", "DEL"].map((s) => `SCHD/${s}`),
      "SCHS/DNLD",
      ...FLOP_SUBTYPES.map((s) => `FLOP/${s}`),
      "LDM/NONE",
      "RSTA/NONE",
      "EROR/NONE",
    ];
    expect(want.filter((k) => !kinds.has(k))).toEqual([]);
    expect(Object.keys(FLOP_MATRIX).filter((s) => !kinds.has(`FLOP/${s}`))).toEqual([]);
  });

  it("states every field of each reference type's table, with a value, in that type's first DNLD", () => {
    const missing: string[] = [];
    for (const [type, schema] of REFERENCE_SCHEMAS) {
      const dnld = corpus.find((m) => new RegExp(`<TYPE>${type}</TYPE>\\s*<STYP>DNLD</STYP>`).test(m.raw));
      if (dnld === undefined) {
        missing.push(`${type}: no DNLD`);
        continue;
      }
      const records = parseCorpusXml(dnld.raw).children.filter((c) => c.name === type);
      const stated = (name: string) => records.some((r) => r.children.some((c) => c.name === name && (c.text.trim() !== "" || c.children.length > 0)));
      for (const name of [schema.key, ...Object.keys(schema.fields)]) if (!stated(name)) missing.push(`${type}.${name}`);
    }
    expect(missing).toEqual([]);
  });

  it("states every scalar and every collection of the flight schema in its SCHD/DNLD (PORT's indicators in its FLOPs too)", () => {
    const names = new Set<string>();
    const collect = (e: XmlElement): void => {
      names.add(e.name);
      for (const [a, v] of e.attributes) if (v.trim() !== "") names.add(`${e.name}@${a}`);
      if (e.name === "PORT") names.add(`PORT@${e.children.find((c) => c.name === "POID")?.text.trim()}`);
      e.children.forEach(collect);
    };
    const dnld = corpus.find((m) => m.file === "030-schd-dnld.xml")!;
    collect(parseCorpusXml(dnld.raw));
    corpus.filter((m) => /<STYP>PORT<\/STYP>/.test(m.raw)).forEach((m) => collect(parseCorpusXml(m.raw)));
    const indexed = Object.values(INDEXED_SCALARS).flatMap((spec) => Object.values(spec.fields) as string[]);
    expect(SCALAR_NAMES.filter((n) => !names.has(n) && !indexed.includes(n))).toEqual([]);
    expect(indexed.filter((n) => !names.has(n))).toEqual([]);
    expect(COLLECTION_NAMES.filter((n) => !names.has(n))).toEqual([]);
  });
});

describe("the real-day corpus through the real Pump on the fakes", () => {
  let verdicts: CorpusVerdict[];
  beforeAll(async () => {
    const clock = new ManualClock();
    const store = new InMemoryPipelineStore(clock);
    verdicts = await runCorpusOnPump(store, clock, fakeView(store));
  });

  it.each(MANIFEST.map((e) => [e.file, e.status, e.rule] as const))("%s → %s (%s)", (file) => {
    const v = verdicts.find((x) => x.file === file)!;
    expect(v.problems, `${file}: ${JSON.stringify(v.outcome)}`).toEqual([]);
  });

  it("every message ends terminal on its first attempt: no FAILED, no retry", () => {
    expect(verdicts.filter((v) => v.outcome.attempts !== 0 || v.outcome.status === "FAILED").map((v) => v.file)).toEqual([]);
    expect(failures(verdicts).filter((p) => /attempts|status FAILED/.test(p))).toEqual([]);
  });
});

describe("an unknown TYPE under the default type policy", () => {
  it("is FAILED(UNSUPPORTED), then DEAD(EXHAUSTED) within its short budget (≤ 3 attempts, ≤ 10 s at the head)", async () => {
    const unknown = loadCorpus().find((m) => m.entry.underDefaultPolicy !== undefined)!;
    const clock = new ManualClock();
    const store = new InMemoryPipelineStore(clock);
    const mailbox = new InMemoryMailbox(clock);
    const { decode, processors, pumpOptions } = realDayPipeline({ unsupported: "fail" });
    const pump = new Pump({ store, mailbox, clock, logger: silentLogger, decode, processors, horizon: () => Number.MAX_SAFE_INTEGER }, pumpOptions);
    const id = mailbox.insert(unknown.raw);
    await store.enqueue([{ msgId: id, receivedAt: clock.now() }], { horizon: id });
    const start = clock.now();
    await pump.step();
    expect(await store.get(id)).toMatchObject({ status: "FAILED", errorClass: unknown.entry.underDefaultPolicy!.failedFirst });
    const end = await driveToTerminal(pump, store, clock, id);
    expect(end).toMatchObject({ status: unknown.entry.underDefaultPolicy!.status, errorClass: unknown.entry.underDefaultPolicy!.errorClass });
    expect(end.attempts).toBeLessThanOrEqual(3);
    expect(clock.now() - start).toBeLessThanOrEqual(10_000);
  });
});

describe("the value walk", () => {
  const dnld = loadCorpus().find((m) => m.file === "030-schd-dnld.xml")!;
  const applied = async () => {
    const clock = new ManualClock();
    const store = new InMemoryPipelineStore(clock);
    const view = fakeView(store);
    await runCorpusOnPump(store, clock, view, { unsupported: "skip" }, [dnld]);
    return { store, view };
  };

  it("finds every value of the applied DNLD", async () => {
    const { view } = await applied();
    expect(await walkValues(dnld.raw, view)).toEqual([]);
  });

  it("reports an element, an attribute and a row field the state does not hold", async () => {
    const { view } = await applied();
    const scratch = dnld.raw
      .replace("<REMC>", '<ZZEL>dropped scalar</ZZEL>\n<REMC>')
      .replace('<GTDT GTNO="1">', '<GTDT GTNO="1" ZZAT="dropped attribute">')
      .replace("<GATE>A22</GATE>", "<GATE>A22</GATE><ZZRW>dropped row field</ZZRW>");
    expect((await walkValues(scratch, view)).map((m) => [m.owner, m.path, m.value])).toEqual([
      ["flight 900301", "ZZEL", "dropped scalar"],
      ["flight 900301", "GTDT/@ZZAT", "dropped attribute"],
      ["flight 900301", "GTDT/ZZRW", "dropped row field"],
    ]);
  });

  it("reports a value the state lost or holds under another name", async () => {
    const { store, view } = await applied();
    const f = store.tables.flights.get("900301")!;
    const { GATE: _gate, ...gtdt } = f.collections.GTDT![0]!.values;
    const { RUNW: _runw, ...scalars } = f.scalars;
    // RUNW's value kept under a name that is not RUNW's.
    const renamed = { ...scalars, RUNX: "02L" } as typeof f.scalars;
    store.tables.flights.set("900301", { ...f, scalars: renamed, collections: { ...f.collections, GTDT: [{ key: "1", values: gtdt }] } });
    expect((await walkValues(dnld.raw, view)).map((m) => m.path)).toEqual(["RUNW", "GTDT/GATE"]);
  });
});
