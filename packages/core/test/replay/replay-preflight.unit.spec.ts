import { describe, expect, it } from "vitest";
import { decodeMessage } from "../../src/codec/xml-codec.js";
import { decideExhaust } from "@msgx/core/testing";
import { DEFAULT_RETRY_POLICY, defaultProcessors, InboxPoller, isReplayConflict, Pump, ReplayService, silentLogger, type ProcessorTable, type ReplayConflictError } from "@msgx/core";
import { InMemoryMailbox, InMemoryPipelineStore, ManualClock } from "@msgx/core/testing";
import { flop, fltr, schd, sis } from "../flight/sis-messages.js";

/**
 * The default processors over the fakes, where the FLOP processor throws (a processor bug, INFRA)
 * for the messages in `broken`: the pump fails them, and an exhaust ends them DEAD(EXHAUSTED).
 */
function world() {
  const clock = new ManualClock();
  const mailbox = new InMemoryMailbox(clock);
  const store = new InMemoryPipelineStore(clock);
  const broken = new Set<number>();
  const real = defaultProcessors();
  const processors: ProcessorTable = {
    ...real,
    flop: {
      flightsOf: (body) => real.flop!.flightsOf(body),
      apply: (body, ctx) => {
        if (broken.has(ctx.msgId)) throw new Error(`bug on ${ctx.msgId}`);
        return real.flop!.apply(body, ctx);
      },
    },
    reference: {
      flightsOf: () => [],
      apply: (body, ctx) => {
        if (broken.has(ctx.msgId)) throw new Error(`bug on ${ctx.msgId}`);
        return real.reference!.apply(body, ctx);
      },
    },
  };
  const deps = { mailbox, store, clock, logger: silentLogger };
  const poller = new InboxPoller(deps, { batchSize: 50, gapGraceMs: 0, rescanEveryMs: 10_000, rescanWindow: 50 });
  const decode = (raw: string) => decodeMessage(raw);
  const pump = new Pump({ ...deps, decode, processors, horizon: () => poller.horizon });
  const drain = async (): Promise<void> => {
    while ((await poller.step()).full);
    for (let i = 0; i < 20; i++) if ((await pump.step()).did !== "processed") return;
  };
  /** Ends a FAILED head DEAD(EXHAUSTED), as the head deadline would. */
  const exhaust = async (msgId: number): Promise<void> => {
    const record = (await store.get(msgId))!;
    const decision = decideExhaust(record, "head deadline", { now: clock.now(), policy: DEFAULT_RETRY_POLICY });
    await store.transaction((tx) => tx.applyRun(decision));
  };
  const replay = new ReplayService({ store, clock, preflight: { mailbox, decode, processors } });
  return { clock, mailbox, store, broken, drain, exhaust, replay };
}

const estt = (flid: string, value: string) => flop("ESTT", [{ flid, inner: `<ESTT>${value}</ESTT>` }]);

/** Flight 1 stored (v1) and message 2, an ESTT for it, DEAD(EXHAUSTED) after a processor bug. */
async function deadEstt() {
  const w = world();
  w.mailbox.insert(schd("DNLD", [fltr("1")]));
  w.mailbox.insert(estt("1", "05MAR260830"));
  w.broken.add(2);
  await w.drain();
  expect(await w.store.get(2)).toMatchObject({ status: "FAILED", errorClass: "INFRA" });
  await w.exhaust(2);
  expect(await w.store.get(2)).toMatchObject({ status: "DEAD", errorClass: "EXHAUSTED" });
  return w;
}

describe("ReplayService preflight: the dry run decides as the pump would, writing nothing", () => {
  it("shows what replaying a DEAD message would change on its flight, and the guard to send back", async () => {
    const w = await deadEstt();
    w.broken.delete(2);
    const before = structuredClone({ records: [...w.store.tables.records], flights: [...w.store.tables.flights], events: w.store.tables.events.length });
    const { preview, expect: guard } = await w.replay.preflight({ msgIds: [2] });
    expect(guard).toStrictEqual({ "flight:1": 1 });
    expect(preview).toHaveLength(1);
    const item = preview[0]!;
    expect(item).toMatchObject({ msgId: 2, eligible: true, outcome: { status: "SUCCEEDED", errorClass: null } });
    expect(item.changes).toHaveLength(1);
    const change = item.changes![0]!;
    expect(change).toMatchObject({ kind: "flight", key: "flight:1", currentVersion: 1, nextVersion: 2 });
    const fields = change.changes.map((c) => c.field);
    expect(fields).toEqual(expect.arrayContaining(["stateVersion", "lastMsgId"]));
    expect(change.changes.find((c) => c.field === "stateVersion")).toStrictEqual({ field: "stateVersion", before: 1, after: 2 });
    expect(change.changes.find((c) => c.field === "lastMsgId")).toStrictEqual({ field: "lastMsgId", before: 1, after: 2 });
    // ESTT is the only flight field the message states.
    expect(fields.filter((f) => f.startsWith("fields.") || f.startsWith("collections."))).toEqual(["fields.ESTT"]);
    // Nothing was written: records, flights and the outbox are as they were.
    expect({ records: [...w.store.tables.records], flights: [...w.store.tables.flights], events: w.store.tables.events.length }).toStrictEqual(before);
    expect(await w.store.audits(10)).toEqual([]);
  });

  it("reports the outcome of a message that would fail again, with no changes", async () => {
    const w = await deadEstt();
    const { preview, expect: guard } = await w.replay.preflight({ errorClasses: ["EXHAUSTED"] });
    expect(preview).toMatchObject([{ msgId: 2, eligible: true, outcome: { status: "FAILED", errorClass: "INFRA", reason: "processor error: bug on 2" }, changes: [] }]);
    expect(guard).toStrictEqual({});
  });

  it("refuses the apply when the flight changed since the preview (another message): conflict, nothing written", async () => {
    const w = await deadEstt();
    w.broken.delete(2);
    const { expect: guard } = await w.replay.preflight({ msgIds: [2] });
    // Another message changes flight 1 after the operator's preview.
    w.mailbox.insert(estt("1", "05MAR260945"));
    await w.drain();
    expect(w.store.tables.flights.get("1")?.stateVersion).toBe(2);
    const refused = await w.replay.replay({ msgIds: [2] }, "alice", { expect: guard }).catch((e: unknown) => e);
    expect(isReplayConflict(refused)).toBe(true);
    expect((refused as ReplayConflictError).mismatches).toStrictEqual([{ key: "flight:1", expected: 1, current: 2 }]);
    expect(await w.store.get(2)).toMatchObject({ status: "DEAD", errorClass: "EXHAUSTED" });
    expect(await w.store.audits(10)).toEqual([]);

    // A fresh preview shows the new versions; applied with them, the replay goes through and is audited.
    const fresh = await w.replay.preflight({ msgIds: [2] });
    expect(fresh.expect).toStrictEqual({ "flight:1": 2 });
    expect(fresh.preview[0]!.changes![0]).toMatchObject({ currentVersion: 2, nextVersion: 3 });
    const result = await w.replay.replay({ msgIds: [2] }, "alice", { expect: fresh.expect });
    expect(result.replayed).toEqual([2]);
    expect(await w.store.get(2)).toMatchObject({ status: "PENDING", attempts: 0 });
    const [audit] = await w.store.audits(10);
    expect(audit).toMatchObject({ operator: "alice", action: "replay", msgIds: [2] });
    expect(JSON.parse(audit!.detail)).toStrictEqual({ operator: "alice", selection: { msgIds: [2] }, refused: [], expect: { "flight:1": 2 } });
  });

  it("a guard key of neither form never matches", async () => {
    const w = await deadEstt();
    const refused = await w.replay.replay({ msgIds: [2] }, "bob", { expect: { "gate:1": 1 } }).catch((e: unknown) => e);
    expect((refused as ReplayConflictError).mismatches).toStrictEqual([{ key: "gate:1", expected: 1, current: null }]);
  });

  it("chains the messages of one replay: the second sees the version the first would leave", async () => {
    const w = world();
    w.mailbox.insert(schd("DNLD", [fltr("1")]));
    w.mailbox.insert(estt("1", "05MAR260830"));
    w.mailbox.insert(estt("1", "05MAR260900"));
    w.broken.add(2);
    w.broken.add(3);
    await w.drain();
    await w.exhaust(2);
    await w.drain();
    await w.exhaust(3);
    w.broken.clear();
    const { preview, expect: guard } = await w.replay.preflight({ msgIds: [2, 3] });
    expect(guard).toStrictEqual({ "flight:1": 1 });
    expect(preview.map((p) => p.changes!.map((c) => [c.key, c.currentVersion, c.nextVersion]))).toStrictEqual([[["flight:1", 1, 2]], [["flight:1", 2, 3]]]);
    expect(preview[1]!.changes![0]!.changes.find((c) => c.field === "fields.ESTT")).toMatchObject({ before: expect.anything(), after: expect.anything() });
  });

  it("without preflight deps the preview is eligibility only and the guard empty", async () => {
    const w = await deadEstt();
    const bare = new ReplayService({ store: w.store, clock: w.clock });
    const { preview, expect: guard } = await bare.preflight({ msgIds: [2, 1] });
    expect(preview).toStrictEqual([
      { msgId: 1, status: "SUCCEEDED", errorClass: null, reason: null, eligible: false, refusal: "status SUCCEEDED is not FAILED or DEAD" },
      { msgId: 2, status: "DEAD", errorClass: "EXHAUSTED", reason: expect.any(String), eligible: true },
    ]);
    expect(guard).toStrictEqual({});
  });

  it("shows reference rows a replayed DNLD would change and delete, and guards each key", async () => {
    const w = world();
    const glst = (...gates: [string, string][]) => sis("GLST", "DNLD", `<RECS>${gates.length}</RECS>${gates.map(([code, name]) => `<GLST><GCOD>${code}</GCOD><GTNM>${name}</GTNM></GLST>`).join("")}`);
    w.mailbox.insert(glst(["A1", "gate A1"], ["A2", "gate A2"]));
    w.mailbox.insert(glst(["A1", "gate A1 east"]));
    w.broken.add(2);
    await w.drain();
    await w.exhaust(2);
    w.broken.clear();
    const { preview, expect: guard } = await w.replay.preflight({ msgIds: [2] });
    expect(guard).toStrictEqual({ "reference:GLST:A1": 1, "reference:GLST:A2": 1 });
    expect(preview[0]!.changes).toStrictEqual([
      {
        kind: "reference",
        key: "reference:GLST:A1",
        currentVersion: 1,
        nextVersion: 2,
        changes: [
          { field: "fields.GTNM", before: "gate A1", after: "gate A1 east" },
          { field: "version", before: 1, after: 2 },
          { field: "msgId", before: 1, after: 2 },
        ],
      },
      {
        kind: "reference",
        key: "reference:GLST:A2",
        currentVersion: 1,
        nextVersion: 2,
        changes: [
          { field: "deleted", before: false, after: true },
          { field: "version", before: 1, after: 2 },
          { field: "msgId", before: 1, after: 2 },
        ],
      },
    ]);
    // A later message renames A2: the guard names that key only.
    w.mailbox.insert(sis("GLST", "UPD", `<RECS>1</RECS><GLST><GCOD>A2</GCOD><GTNM>gate A2 west</GTNM></GLST>`));
    await w.drain();
    const refused = await w.replay.replay({ msgIds: [2] }, "dan", { expect: guard }).catch((e: unknown) => e);
    expect((refused as ReplayConflictError).mismatches).toStrictEqual([{ key: "reference:GLST:A2", expected: 1, current: 2 }]);
    expect(await w.store.get(2)).toMatchObject({ status: "DEAD" });
  });
});
