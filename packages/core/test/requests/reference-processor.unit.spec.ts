import { describe, expect, it } from "vitest";
import { decodeMessage } from "../../src/codec/xml-codec.js";
import { DEFAULT_IDENTITY_OPTIONS } from "../../src/model/identity.js";
import { EventType, Target, type OutboxEventDraft } from "../../src/outbox/outbox-event.js";
import { decideRun } from "../../src/processing/decide-run.js";
import { prepareRun } from "../../src/processing/prepare-run.js";
import type { OpenRequest } from "../../src/requests/open-request.js";
import { newProcRecord } from "../../src/processing/proc-machine.js";
import { DEFAULT_RETRY_POLICY } from "../../src/runtime/retry-policy.js";
import type { RunDecision } from "../../src/processing/run-decision.js";
import { refKey, type RefEntry } from "../../src/requests/reference-entry.js";
import { referenceProcessor } from "../../src/processing/reference-processor.js";
import { fixture } from "../codec/sis-fixtures.js";

const NOW = Date.UTC(2026, 2, 5, 12, 0, 0);
const DTTM = "20260305160000";
const processors = { reference: referenceProcessor() };

let seqn = 700_000;
/** A reference message in the upstream layout; every call gets its own SEQN (its own identity). */
const ref = (type: string, styp: string, records: string, recs: number | null = (records.match(new RegExp(`<${type}>`, "g")) ?? []).length): string =>
  `<MSG><META><SNDR>AODB</SNDR><SEQN>${seqn++}</SEQN><DTTM>${DTTM}</DTTM><TYPE>${type}</TYPE><STYP>${styp}</STYP></META>${recs === null ? "" : `<RECS>${recs}</RECS>`}${records}</MSG>`;
const glst = (code: string, name = `gate ${code}`) => `<GLST><GCOD>${code}</GCOD><GTNM>${name}</GTNM></GLST>`;
const fresh = (raw: string) => raw.replace(/<SEQN>\d+<\/SEQN>/, `<SEQN>${seqn++}</SEQN>`);

/** The pipeline around the reference processor: runs decided by `decideRun`, committed into a map. */
class RefHarness {
  readonly rows = new Map<string, RefEntry>();
  readonly events: OutboxEventDraft[] = [];
  #nextId = 1;

  run(raws: readonly string[], openRequests: readonly OpenRequest[] = []): RunDecision {
    const ids = raws.map(() => this.#nextId++);
    const prepared = prepareRun(
      ids.map((id) => newProcRecord(id, NOW, NOW)),
      new Map(ids.map((id, i) => [id, { found: true as const, text: raws[i]! }])),
      (text) => decodeMessage(text),
      processors,
      DEFAULT_IDENTITY_OPTIONS,
    );
    // Only the types the run names are loaded, as the store does: a wrong `referenceTypes` shows.
    const references = [...this.rows.values()].filter((r) => prepared.referenceTypes?.includes(r.rtype));
    const decision = decideRun(prepared, { identityOwners: new Map(), flights: new Map(), openRequests, references }, {
      now: NOW,
      policy: DEFAULT_RETRY_POLICY,
      identity: DEFAULT_IDENTITY_OPTIONS,
      processors,
    });
    for (const r of decision.references ?? []) this.rows.set(refKey(r.rtype, r.rkey), { ...r, updatedAt: NOW });
    this.events.push(...decision.events);
    return decision;
  }

  one(raw: string, openRequests: readonly OpenRequest[] = []): RunDecision {
    return this.run([raw], openRequests);
  }

  row(rtype: string, rkey: string): RefEntry | undefined {
    return this.rows.get(refKey(rtype, rkey));
  }
}

const outcome = (d: RunDecision) => d.records.map((r) => `${r.status}${r.reason ? `:${r.reason}` : ""}`);
const keys = (d: RunDecision) => d.events.map((e) => `${e.eventType === EventType.TOMBSTONE ? "-" : "+"}${e.partitionKey}@${e.stateVersion}`);

describe("reference processor: upstream semantics (WIRE.md \"Reference data\")", () => {
  it("a DNLD on an empty store upserts every record: one UPSERT per key on KAFKA:ref, keyed <TYPE>:<KEY>, the full record as value", () => {
    const h = new RefHarness();
    const d = h.one(fixture("10-ref-airl-dnld.xml"));
    expect(outcome(d)).toEqual(["SUCCEEDED"]);
    expect(keys(d)).toEqual(["+AIRL:K4@1", "+AIRL:K5@1"]);
    expect(d.events[1]).toStrictEqual({
      target: Target.REF,
      partitionKey: "AIRL:K5",
      eventType: "UPSERT",
      stateVersion: 1,
      sourceMsgId: 1,
      payload: {
        schemaVersion: 1,
        type: "AIRL",
        key: "K5",
        version: 1,
        lastMsgId: 1,
        lastSrcDttm: "20260305050000",
        fields: { ICOP: "KLN", ONAM: "KOALA LINK", ONMC: "考拉联航", CTRY: "AU", DORI: "I", TRML: [], OGRP: [] },
      },
    });
    expect(h.row("AIRL", "K4")).toMatchObject({ deleted: false, version: 1, msgId: 1, fields: { OGRP: ["SKY CARGO GROUP"] } });
    expect(d.warnings).toBeUndefined();
  });

  it("an unchanged upsert is no change: the same DNLD again changes and publishes nothing", () => {
    const h = new RefHarness();
    h.one(fixture("10-ref-airl-dnld.xml"));
    const again = h.one(fresh(fixture("10-ref-airl-dnld.xml")));
    expect(outcome(again)).toEqual(["SUCCEEDED"]);
    expect(again.events).toEqual([]);
    expect(again.references).toBeUndefined();
    expect(h.row("AIRL", "K4")).toMatchObject({ version: 1, msgId: 1 });
  });

  it("fields compare by value, not by the order of their names (a store may give them back in its own order)", () => {
    const h = new RefHarness();
    h.one(ref("GLST", "ADD", "<GLST><GCOD>A1</GCOD><GTNM>gate</GTNM><GTML>T1</GTML></GLST>"));
    const stored = h.row("GLST", "A1")!;
    h.rows.set(refKey("GLST", "A1"), { ...stored, fields: { GTML: "T1", GTNM: "gate" } });
    expect(h.one(ref("GLST", "UPD", "<GLST><GCOD>A1</GCOD><GTML>T1</GTML><GTNM>gate</GTNM></GLST>")).events).toEqual([]);
  });

  it("a DNLD replaces the whole type: changed keys upserted, new keys added, stored keys it omits deleted (TOMBSTONE, value null); other types untouched", () => {
    const h = new RefHarness();
    h.one(ref("GLST", "DNLD", glst("A1") + glst("A2") + glst("A3")));
    h.one(ref("GLST", "DEL", glst("A3")));
    h.one(ref("PLST", "DNLD", "<PLST><PCOD>P1</PCOD></PLST>"));
    const d = h.one(ref("GLST", "DNLD", glst("A4") + glst("A1", "renamed")));
    expect(outcome(d)).toEqual(["SUCCEEDED"]);
    // Upserts in wire order, then the deletes in key order; A3 was already deleted: nothing.
    expect(keys(d)).toEqual(["+GLST:A4@1", "+GLST:A1@2", "-GLST:A2@2"]);
    const tomb = d.events.find((e) => e.partitionKey === "GLST:A2")!;
    expect(tomb).toMatchObject({ target: Target.REF, eventType: "TOMBSTONE", payload: null, stateVersion: 2, sourceMsgId: 4 });
    expect(h.row("GLST", "A2")).toMatchObject({ deleted: true, version: 2, msgId: 4, fields: { GTNM: "gate A2" } });
    expect(h.row("GLST", "A3")).toMatchObject({ deleted: true, version: 2, msgId: 2 });
    expect(h.row("PLST", "P1")).toMatchObject({ deleted: false, version: 1, msgId: 3 });
  });

  it("a DNLD of no records deletes the whole type (upstream semantics)", () => {
    const h = new RefHarness();
    h.one(ref("GLST", "DNLD", glst("A1") + glst("A2")));
    expect(keys(h.one(ref("GLST", "DNLD", "")))).toEqual(["-GLST:A1@2", "-GLST:A2@2"]);
  });

  it("ADD and UPD upsert by key and delete nothing; an UPD of an unknown key inserts it", () => {
    const h = new RefHarness();
    h.one(ref("GLST", "DNLD", glst("A1") + glst("A2")));
    const d = h.run([ref("GLST", "ADD", glst("A3")), ref("GLST", "UPD", glst("A1", "renamed") + glst("B9")), ref("GLST", "ADD", glst("A2"))]);
    expect(outcome(d)).toEqual(["SUCCEEDED", "SUCCEEDED", "SUCCEEDED"]);
    expect(keys(d)).toEqual(["+GLST:A3@1", "+GLST:A1@2", "+GLST:B9@1"]);
    expect([...h.rows.values()].filter((r) => !r.deleted).map((r) => `${r.rkey}:${String(r.fields["GTNM"])}`)).toEqual(["A1:renamed", "A2:gate A2", "A3:gate A3", "B9:gate B9"]);
  });

  it("DEL deletes by key (a key-only record, fixture 11); unknown and already deleted keys are no-ops; a key that comes back counts its version on", () => {
    const h = new RefHarness();
    h.one(fixture("15-ref-arpt-add-abbr.xml"));
    const del = h.one(fixture("11-ref-arpt-del-key-only.xml"));
    expect(outcome(del)).toEqual(["SUCCEEDED"]);
    expect(keys(del)).toEqual(["-ARPT:KXA@2"]);
    // The tombstone row keeps the last live fields (the DEL carried only the key).
    expect(h.row("ARPT", "KXA")).toMatchObject({ deleted: true, version: 2, fields: { ANAM: "KESTREL BAY", ABBR: { ABR1: "KESTREL", ABR2: "红隼" } } });
    const again = h.one(fresh(fixture("11-ref-arpt-del-key-only.xml")));
    const unknown = h.one(ref("ARPT", "DEL", "<ARPT><ITCD>ZZZ</ITCD></ARPT>"));
    expect([...outcome(again), ...outcome(unknown)]).toEqual(["SUCCEEDED", "SUCCEEDED"]);
    expect([...again.events, ...unknown.events]).toEqual([]);
    expect(h.row("ARPT", "ZZZ")).toBeUndefined();
    const back = h.one(fresh(fixture("15-ref-arpt-add-abbr.xml")));
    expect(keys(back)).toEqual(["+ARPT:KXA@3"]);
    expect(h.row("ARPT", "KXA")).toMatchObject({ deleted: false, version: 3 });
  });

  it("changes of one key within one run: each gets its version and its event; the decision writes the last", () => {
    const h = new RefHarness();
    const d = h.run([ref("GLST", "ADD", glst("A1")), ref("GLST", "UPD", glst("A1", "renamed")), ref("GLST", "DEL", glst("A1")), ref("GLST", "ADD", glst("A1"))]);
    expect(keys(d)).toEqual(["+GLST:A1@1", "+GLST:A1@2", "-GLST:A1@3", "+GLST:A1@4"]);
    expect(d.references).toEqual([{ rtype: "GLST", rkey: "A1", fields: { GTNM: "gate A1" }, deleted: false, version: 4, msgId: 4 }]);
  });

  it("a key twice in one package is PROTOCOL: nothing written, no event", () => {
    const h = new RefHarness();
    const d = h.one(ref("GLST", "DNLD", glst("A1") + glst("A1", "other")));
    expect(outcome(d)).toEqual(["DEAD:GLST/DNLD: key A1 twice in one package"]);
    expect(d.events).toEqual([]);
    expect(h.rows.size).toBe(0);
  });

  it("RECS is untrustworthy: a mismatch or a missing RECS applies and is a recs-mismatch warning; a right one says nothing", () => {
    const h = new RefHarness();
    const d = h.run([fixture("16-ref-coul-dnld-recs-mismatch.xml"), ref("GLST", "ADD", glst("A1"), null), ref("GLST", "ADD", glst("A2"))]);
    expect(outcome(d)).toEqual(["SUCCEEDED", "SUCCEEDED", "SUCCEEDED"]);
    expect(keys(d)).toEqual(["+COUL:CN@1", "+COUL:AU@1", "+GLST:A1@1", "+GLST:A2@1"]);
    expect(d.warnings).toEqual([
      { msgId: 1, code: "recs-mismatch", detail: "COUL/DNLD: RECS 5 but 2 records" },
      { msgId: 2, code: "recs-mismatch", detail: "GLST/ADD: RECS missing, 1 records" },
    ]);
  });

  it("a RESP applies only as the answer to the open RQRD of its type (replacing the type), and closes it", () => {
    const h = new RefHarness();
    h.one(ref("ARPT", "DNLD", "<ARPT><ITCD>OLD</ITCD></ARPT>"));
    const rqrd = (rtype: string): OpenRequest => ({ requestId: "rq-1", kind: "RQRD", rtype, sentAt: 0 });
    const unasked = h.one(fixture("09-arpt-resp-reference.xml"));
    const otherType = h.one(fresh(fixture("09-arpt-resp-reference.xml")), [rqrd("CITY")]);
    expect([...outcome(unasked), ...outcome(otherType)]).toEqual(["SKIPPED:no-request", "SKIPPED:no-request"]);
    expect([...unasked.events, ...otherType.events]).toEqual([]);
    const answer = h.one(fresh(fixture("09-arpt-resp-reference.xml")), [rqrd("ARPT")]);
    expect(outcome(answer)).toEqual(["SUCCEEDED"]);
    expect(keys(answer)).toEqual(["+ARPT:PEK@1", "+ARPT:CAN@1", "-ARPT:OLD@2"]);
    expect(answer.records[0]?.reason).toBeNull();
  });

  it("REGN (fixture 12) is reference data like any other type: applied unasked as a DNLD", () => {
    const h = new RefHarness();
    const d = h.one(fixture("12-ref-regn-dnld.xml"));
    expect(outcome(d)).toEqual(["SUCCEEDED"]);
    expect(keys(d)).toEqual(["+REGN:B-5948@1", "+REGN:B-6120@1"]);
    expect(d.warnings?.map((w) => w.code)).toEqual(["recs-mismatch"]);
  });

  it("prepareRun names the reference types the run needs loaded", () => {
    const run = prepareRun(
      [1, 2, 3].map((id) => newProcRecord(id, NOW, NOW)),
      new Map([
        [1, { found: true as const, text: fixture("10-ref-airl-dnld.xml") }],
        [2, { found: true as const, text: fixture("11-ref-arpt-del-key-only.xml") }],
        [3, { found: true as const, text: fresh(fixture("10-ref-airl-dnld.xml")) }],
      ]),
      (text) => decodeMessage(text),
      processors,
      DEFAULT_IDENTITY_OPTIONS,
    );
    expect(run.referenceTypes).toEqual(["AIRL", "ARPT"]);
    expect(run.needsRequests).toBe(false);
  });
});
