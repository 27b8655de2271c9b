import { fc, test as fcTest } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { DEFAULT_IDENTITY_WINDOW_MS, sha256Hex } from "@msgx/core";
import { PipelineWorld } from "./pipeline-world.js";

/** A FLOP ESTT of SEQN 5 for `flid`: the same identity (`AODB|FLOP|ESTT|5`) whatever the body. */
const estt = (flid: number, dttm = "20260305020000") =>
  `<MSG><META><SNDR>AODB</SNDR><SEQN>5</SEQN><DTTM>${dttm}</DTTM><TYPE>FLOP</TYPE><STYP>ESTT</STYP></META><FLOP><FLID>${flid}</FLID><ESTT>05MAR261452</ESTT></FLOP></MSG>`;
const KEY = "AODB|FLOP|ESTT|5";
const HOUR = 3_600_000;

async function settle(w: PipelineWorld) {
  await w.poller.step();
  return w.pumpSteps(10);
}

/** A world whose first message (id 1, FLID 900001) holds `KEY`, bound at the clock's start. */
async function bound(window?: number, onContentDiffers: "skip" | "dead" = "skip") {
  const identity = { includeDayBoundary: false, onContentDiffers, ...(window === undefined ? {} : { window }) };
  const w = new PipelineWorld(200, undefined, { pump: { identity } });
  const t0 = w.clock.now();
  w.mailbox.insert(estt(900001));
  await settle(w);
  expect(await w.store.get(1)).toMatchObject({ status: "SUCCEEDED", identityKey: KEY });
  expect(w.store.tables.identityBoundAt.get(KEY)).toBe(t0);
  return { w, t0 };
}

describe("the dedupe window (identity.window; WIRE.md \"SEQN and identity\")", () => {
  it("a differing body whose owner is older than the window is a new message: processed, the identity moves to it, warned and audited identity-reused", async () => {
    const { w, t0 } = await bound(10 * HOUR);
    w.clock.advance(10 * HOUR + 1);
    w.mailbox.insert(estt(900002));
    const [step] = await settle(w);
    expect(await w.store.get(2)).toMatchObject({ status: "SUCCEEDED", identityKey: KEY });
    expect(w.store.tables.events.map((e) => e.sourceMsgId)).toContain(2);
    expect(w.store.tables.identities.get(KEY)).toBe(2);
    expect(w.store.tables.identityHashes.get(KEY)).toBe(sha256Hex(estt(900002)));
    expect(w.store.tables.identityBoundAt.get(KEY)).toBe(t0 + 10 * HOUR + 1);
    expect(step?.did === "processed" && step.warnings?.map((x) => [x.msgId, x.code])).toEqual([[2, "identity-reused"]]);
    expect(step?.did === "processed" && step.warnings?.[0]?.detail).toContain(`identity ${KEY} was held by message 1`);
    const audits = await w.store.audits(10);
    expect(audits.map((a) => [a.operator, a.action, a.msgIds])).toEqual([["msgx", "identity-reused", [2, 1]]]);
  });

  it("after the move, the window counts from the new owner: a third differing body inside it is SKIPPED duplicate-of:<new owner> content-differs", async () => {
    const { w } = await bound(10 * HOUR);
    w.clock.advance(11 * HOUR);
    w.mailbox.insert(estt(900002));
    await settle(w);
    w.clock.advance(HOUR);
    w.mailbox.insert(estt(900003));
    await settle(w);
    expect(await w.store.get(3)).toMatchObject({ status: "SKIPPED", reason: "duplicate-of:2 content-differs" });
    expect(w.store.tables.identities.get(KEY)).toBe(2);
  });

  it("a differing body inside the window stays SKIPPED duplicate-of:<id> content-differs (DEAD under onContentDiffers: dead); the binding stays", async () => {
    for (const policy of ["skip", "dead"] as const) {
      const { w } = await bound(10 * HOUR, policy);
      w.clock.advance(10 * HOUR);
      w.mailbox.insert(estt(900002));
      const [step] = await settle(w);
      expect(await w.store.get(2), policy).toMatchObject(
        policy === "skip" ? { status: "SKIPPED", reason: "duplicate-of:1 content-differs" } : { status: "DEAD", errorClass: "PROTOCOL", reason: "duplicate-of:1 content-differs" },
      );
      expect(step?.did === "processed" && step.warnings?.map((x) => x.code)).toEqual(["content-differs"]);
      expect(w.store.tables.identities.get(KEY)).toBe(1);
      expect(await w.store.audits(10)).toEqual([]);
    }
  });

  it("an identical re-insert dedupes however old the binding is", async () => {
    const { w, t0 } = await bound(HOUR);
    w.clock.advance(400 * 24 * HOUR);
    w.mailbox.insert(estt(900001));
    const [step] = await settle(w);
    expect(await w.store.get(2)).toMatchObject({ status: "SKIPPED", reason: "duplicate-of:1", identityKey: null });
    expect(step?.did === "processed" && step.warnings).toBeUndefined();
    expect(w.store.tables.identities.get(KEY)).toBe(1);
    expect(w.store.tables.identityBoundAt.get(KEY)).toBe(t0);
  });

  it("a binding stored without a hash keeps the plain rule at any age (its body cannot be compared)", async () => {
    const { w } = await bound(HOUR);
    w.store.tables.identityHashes.delete(KEY);
    w.clock.advance(10 * HOUR);
    w.mailbox.insert(estt(900002));
    await settle(w);
    expect(await w.store.get(2)).toMatchObject({ status: "SKIPPED", reason: "duplicate-of:1" });
  });

  it("defaults to three days", async () => {
    expect(DEFAULT_IDENTITY_WINDOW_MS).toBe(3 * 24 * HOUR);
    const { w } = await bound();
    w.clock.advance(DEFAULT_IDENTITY_WINDOW_MS);
    w.mailbox.insert(estt(900002));
    await settle(w);
    expect(await w.store.get(2)).toMatchObject({ status: "SKIPPED", reason: "duplicate-of:1 content-differs" });
    w.clock.advance(1);
    w.mailbox.insert(estt(900003));
    await settle(w);
    expect(await w.store.get(3)).toMatchObject({ status: "SUCCEEDED", identityKey: KEY });
  });

  it("the move is refused when another message holds the key by commit time: the run fails and retries, nothing of it kept", async () => {
    const { w } = await bound(HOUR);
    w.clock.advance(2 * HOUR);
    // The store refuses a move whose `replaces` no longer holds the key, as PostgreSQL's counted UPDATE does.
    await expect(
      w.store.transaction((tx) => tx.applyRun({ records: [], bindings: [{ identityKey: KEY, msgId: 2, contentHash: "x", replaces: 7 }], flights: [], events: [], backfill: [] })),
    ).rejects.toThrow(/identity AODB\|FLOP\|ESTT\|5 moved: held by 1, expected 7/);
    expect(w.store.tables.identities.get(KEY)).toBe(1);
  });

  /**
   * Over any ages and bodies of a second message: identical → SKIPPED duplicate-of:1 at any age;
   * differing and older than the window → SUCCEEDED and the owner; differing inside → SKIPPED
   * content-differs, the owner unchanged.
   */
  fcTest.prop([fc.integer({ min: 1, max: 30 * 24 }), fc.integer({ min: 0, max: 60 * 24 }), fc.boolean()], { numRuns: 40 })(
    "the outcome depends on body and age exactly as the rule says",
    async (windowHours, ageHours, same) => {
      const window = windowHours * HOUR;
      const { w } = await bound(window);
      w.clock.advance(ageHours * HOUR);
      w.mailbox.insert(same ? estt(900001) : estt(900002));
      await settle(w);
      const second = await w.store.get(2);
      if (same) expect(second).toMatchObject({ status: "SKIPPED", reason: "duplicate-of:1" });
      else if (ageHours * HOUR > window) expect(second).toMatchObject({ status: "SUCCEEDED", identityKey: KEY });
      else expect(second).toMatchObject({ status: "SKIPPED", reason: "duplicate-of:1 content-differs" });
      expect(w.store.tables.identities.get(KEY)).toBe(!same && ageHours * HOUR > window ? 2 : 1);
    },
  );
});
