import { describe, expect, it } from "vitest";
import { ReplayService } from "@msgx/core";
import { type PumpStep } from "@msgx/core/testing";
import { PipelineWorld, sisXml } from "./pipeline-world.js";

/** Polls, then steps the pump until it waits, sleeping (on the fake clock) until each wake-up; stops at `limitMs`. */
async function runUntilQuiet(w: PipelineWorld, limitMs = 60_000): Promise<PumpStep[]> {
  const start = w.clock.now();
  const steps: PumpStep[] = [];
  await w.poller.step();
  while (w.clock.now() - start <= limitMs) {
    const [s] = await w.pumpSteps(1);
    if (s === undefined || s.did === "idle") break;
    steps.push(s);
    if (s.did === "wait") w.clock.set(s.until);
  }
  return steps;
}

describe("type policy through the Pump (WIRE.md \"Unknown and unwanted types\")", () => {
  it("ignore: SKIPPED ignored:<TYPE> with no state change, backfilled; the messages behind it go on in the same run", async () => {
    const w = new PipelineWorld(200);
    w.mailbox.insert(sisXml("ignorable", 1));
    w.mailbox.insert(sisXml("valid", 2));
    await runUntilQuiet(w);
    expect(await w.store.get(1)).toMatchObject({ status: "SKIPPED", reason: "ignored:LDM", attempts: 0 });
    expect(await w.store.get(2)).toMatchObject({ status: "SUCCEEDED" });
    expect(w.store.tables.events.map((e) => e.sourceMsgId)).toEqual([2]);
    expect(w.mailbox.rows.get(1)?.processedAt).not.toBeNull();
  });

  it("ignore per FLOP subtype: SKIPPED ignored:FLOP/<STYP>, the processor never called", async () => {
    const w = new PipelineWorld(200, undefined, { codec: { typePolicy: { "FLOP/ESTT": "ignore" } } });
    w.mailbox.insert(sisXml("valid", 1));
    await runUntilQuiet(w);
    expect(await w.store.get(1)).toMatchObject({ status: "SKIPPED", reason: "ignored:FLOP/ESTT" });
    expect(w.store.tables.events).toEqual([]);
    expect(w.mailbox.rows.get(1)?.processedAt).not.toBeNull();
  });

  it("unsupported (default): 3 attempts with backoff 1, 2 s, then DEAD(EXHAUSTED) ~3 s after the stable start, audited; the head moves on", async () => {
    const w = new PipelineWorld(200);
    const T0 = w.clock.now();
    w.mailbox.insert(sisXml("unsupported", 1));
    w.mailbox.insert(sisXml("valid", 2));
    await runUntilQuiet(w);
    const dead = (await w.store.get(1))!;
    expect(dead).toMatchObject({ status: "DEAD", errorClass: "EXHAUSTED", attempts: 3, headSince: T0 });
    expect(dead.history.map((h) => [h.at - T0, h.errorClass, h.reason])).toEqual([
      [0, "UNSUPPORTED", "unsupported:ZZZZ/NONE"],
      [1_000, "UNSUPPORTED", "unsupported:ZZZZ/NONE"],
      [3_000, "UNSUPPORTED", "unsupported:ZZZZ/NONE"],
    ]);
    expect(w.store.tables.terminalLog).toEqual([
      { msgId: 1, status: "DEAD" },
      { msgId: 2, status: "SUCCEEDED" },
    ]);
    expect(w.clock.now() - T0).toBeLessThanOrEqual(10_000);
    expect(await w.store.audits(10)).toMatchObject([{ operator: "msgx", action: "unsupported-exhausted", msgIds: [1], detail: expect.stringContaining("unsupported:ZZZZ/NONE") }]);
    expect(w.mailbox.rows.get(1)?.processedAt).not.toBeNull();
  });

  it("unsupported never holds the head past its own deadline, even with attempts to spare (and never past the normal head deadline)", async () => {
    const w = new PipelineWorld(200, undefined, { pump: { unsupported: { mode: "fail", maxAttempts: 50, headDeadlineMs: 10_000 } } });
    const T0 = w.clock.now();
    w.mailbox.insert(sisXml("unsupported", 1));
    await runUntilQuiet(w);
    const dead = (await w.store.get(1))!;
    // Attempts at 0, 1, 3, 7 s; the next (15 s) is past the deadline: exhausted at 10 s, not 15.
    expect(dead).toMatchObject({ status: "DEAD", errorClass: "EXHAUSTED", attempts: 4 });
    expect(dead.updatedAt - T0).toBe(10_000);
    expect(await w.store.audits(10)).toMatchObject([{ action: "unsupported-exhausted", msgIds: [1] }]);

    const capped = new PipelineWorld(200, undefined, {
      pump: { policy: { maxAttempts: 5, initialBackoffMs: 1_000, backoffMultiplier: 2, maxBackoffMs: 60_000, headDeadlineMs: 2_500 }, unsupported: { mode: "fail", maxAttempts: 50, headDeadlineMs: 60_000 } },
    });
    const C0 = capped.clock.now();
    capped.mailbox.insert(sisXml("unsupported", 1));
    await runUntilQuiet(capped);
    expect((await capped.store.get(1))!.updatedAt - C0).toBe(2_500);
  });

  it("the short budget is for UNSUPPORTED only: a CODEC_ERROR-like fault keeps the normal 5 attempts", async () => {
    const w = new PipelineWorld(200);
    w.mailbox.insert(sisXml("poison", 1));
    w.poisoned.add(1);
    await runUntilQuiet(w);
    expect(await w.store.get(1)).toMatchObject({ status: "DEAD", errorClass: "EXHAUSTED", attempts: 5 });
    expect(await w.store.audits(10)).toEqual([]);
  });

  it("replay after review brings an exhausted unsupported message back; once the operator ignores its TYPE it ends SKIPPED", async () => {
    const w = new PipelineWorld(200);
    w.mailbox.insert(sisXml("unsupported", 1));
    await runUntilQuiet(w);
    expect(await w.store.get(1)).toMatchObject({ status: "DEAD", errorClass: "EXHAUSTED" });
    w.options = { codec: { typePolicy: { ZZZZ: "ignore" } } };
    w.restart();
    expect((await new ReplayService({ store: w.store, clock: w.clock }).replay({ errorClasses: ["EXHAUSTED"] }, "ops")).replayed).toEqual([1]);
    await runUntilQuiet(w);
    expect(await w.store.get(1)).toMatchObject({ status: "SKIPPED", reason: "ignored:ZZZZ", identityKey: "AODB|ZZZZ|NONE|1" });
  });

  it("unsupported: skip → SKIPPED unsupported:<TYPE>/<STYP> at once, with an audit row, backfilled, nothing held", async () => {
    const w = new PipelineWorld(200, undefined, { pump: { unsupported: { mode: "skip", maxAttempts: 3, headDeadlineMs: 10_000 } } });
    const T0 = w.clock.now();
    w.mailbox.insert(sisXml("unsupported", 1));
    w.mailbox.insert(sisXml("valid", 2));
    await w.poller.step();
    const [step] = await w.pumpSteps(1);
    expect(step?.did === "processed" && step.records.map((r) => [r.msgId, r.status, r.reason])).toEqual([
      [1, "SKIPPED", "unsupported:ZZZZ/NONE"],
      [2, "SUCCEEDED", null],
    ]);
    expect(await w.store.audits(10)).toEqual([{ auditId: 1, at: T0, operator: "msgx", action: "unsupported-skipped", msgIds: [1], detail: "unsupported:ZZZZ/NONE" }]);
    await w.pump.settle();
    expect(w.mailbox.rows.get(1)?.processedAt).not.toBeNull();
  });

  it("a kind with no processor is UNSUPPORTED under the same budget (SCHS set to process without a seasonal processor)", async () => {
    const w = new PipelineWorld(200, undefined, { codec: { typePolicy: { SCHS: "process" } } });
    w.mailbox.insert(
      `<MSG><META><SNDR>AODB</SNDR><SEQN>9</SEQN><DTTM>20260305020000</DTTM><TYPE>SCHS</TYPE><STYP>DNLD</STYP></META><SCHS><RECS>0</RECS></SCHS></MSG>`,
    );
    await runUntilQuiet(w);
    expect(await w.store.get(1)).toMatchObject({ status: "DEAD", errorClass: "EXHAUSTED", attempts: 3, reason: expect.stringContaining("unsupported:SCHS/DNLD: no processor for seasonal") });
  });
});
