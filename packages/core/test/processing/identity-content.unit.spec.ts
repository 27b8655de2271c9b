import { createHash } from "node:crypto";
import { fc, test as fcTest } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { Identity, sha256Hex } from "@msgx/core";
import { PipelineWorld } from "./pipeline-world.js";

/** A FLOP ESTT of SEQN 5 for `flid`: the same identity (`AODB|FLOP|ESTT|5`) whatever the body. */
const estt = (flid: number, dttm = "20260305020000") =>
  `<MSG><META><SNDR>AODB</SNDR><SEQN>5</SEQN><DTTM>${dttm}</DTTM><TYPE>FLOP</TYPE><STYP>ESTT</STYP></META><FLOP><FLID>${flid}</FLID><ESTT>05MAR261452</ESTT></FLOP></MSG>`;
const KEY = "AODB|FLOP|ESTT|5";

async function settle(w: PipelineWorld) {
  await w.poller.step();
  return w.pumpSteps(10);
}

describe("a taken identity (WIRE.md \"SEQN and identity\", SPEC §2.2)", () => {
  it("an identical re-insert dedupes: SKIPPED duplicate-of:<id>, no warning; the binding keeps the first text's hash", async () => {
    const w = new PipelineWorld(200);
    w.mailbox.insert(estt(900001));
    w.mailbox.insert(estt(900001));
    const [step] = await settle(w);
    expect(await w.store.get(2)).toMatchObject({ status: "SKIPPED", reason: "duplicate-of:1", identityKey: null });
    expect(step?.did === "processed" && step.warnings).toBeUndefined();
    expect(w.store.tables.identityHashes.get(KEY)).toBe(sha256Hex(estt(900001)));
  });

  it("a different body: SKIPPED duplicate-of:<id> content-differs, with a content-differs warning (default skip)", async () => {
    const w = new PipelineWorld(200);
    w.mailbox.insert(estt(900001));
    w.mailbox.insert(estt(900002));
    w.mailbox.insert(estt(900003, "20260305020001"));
    const [step] = await settle(w);
    expect(await w.store.get(2)).toMatchObject({ status: "SKIPPED", reason: "duplicate-of:1 content-differs" });
    expect(await w.store.get(3)).toMatchObject({ status: "SKIPPED", reason: "duplicate-of:1 content-differs" });
    expect(step?.did === "processed" && step.warnings?.map((x) => [x.msgId, x.code])).toEqual([
      [2, "content-differs"],
      [3, "content-differs"],
    ]);
    expect(step?.did === "processed" && step.warnings?.[0]?.detail).toContain(`identity ${KEY} is held by message 1`);
    // Nothing of the skipped bodies was applied, and they are written back like any terminal message.
    expect(w.store.tables.events.map((e) => e.sourceMsgId)).toEqual([1]);
    await w.pump.settle();
    expect(w.mailbox.rows.get(2)?.processedAt).not.toBeNull();
  });

  it("onContentDiffers: dead holds a different body DEAD(PROTOCOL) for review, still warned; an identical one still dedupes", async () => {
    const w = new PipelineWorld(200, undefined, { pump: { identity: { includeDayBoundary: false, onContentDiffers: "dead" } } });
    w.mailbox.insert(estt(900001));
    w.mailbox.insert(estt(900002));
    w.mailbox.insert(estt(900001));
    const [step] = await settle(w);
    expect(await w.store.get(2)).toMatchObject({ status: "DEAD", errorClass: "PROTOCOL", reason: "duplicate-of:1 content-differs" });
    expect(await w.store.get(3)).toMatchObject({ status: "SKIPPED", reason: "duplicate-of:1" });
    expect(step?.did === "processed" && step.warnings?.map((x) => x.code)).toEqual(["content-differs"]);
  });

  it("a binding stored without a hash (from before hashes were kept) gets the plain duplicate rule", async () => {
    const w = new PipelineWorld(200);
    w.mailbox.insert(estt(900001));
    await settle(w);
    // A write from outside the pipeline moves the state generation on, as every writer must.
    w.store.tables.identityHashes.delete(KEY);
    w.store.tables.generation += 1;
    w.mailbox.insert(estt(900002));
    const [step] = await settle(w);
    expect(await w.store.get(2)).toMatchObject({ status: "SKIPPED", reason: "duplicate-of:1" });
    expect(step?.did === "processed" && step.warnings).toBeUndefined();
  });

  it("a retry keeps its own binding and is never a duplicate of itself, whatever the hashes", async () => {
    const w = new PipelineWorld(200);
    w.poisoned.add(5);
    w.mailbox.insert(estt(900001));
    await settle(w);
    expect(await w.store.get(1)).toMatchObject({ status: "FAILED", identityKey: KEY });
    w.poisoned.clear();
    w.clock.advance(1_000);
    await w.pumpSteps(1);
    expect(await w.store.get(1)).toMatchObject({ status: "SUCCEEDED" });
  });

  it("identity.includeContent: DTTM and the hash join the key, so a reused SEQN with another body is a new message; an identical one dedupes", async () => {
    const w = new PipelineWorld(200, undefined, { pump: { identity: { includeDayBoundary: false, includeContent: true } } });
    w.mailbox.insert(estt(900001));
    w.mailbox.insert(estt(900002));
    w.mailbox.insert(estt(900001));
    await settle(w);
    expect(await w.store.get(1)).toMatchObject({ status: "SUCCEEDED", identityKey: `${KEY}|20260305020000|${sha256Hex(estt(900001))}` });
    expect(await w.store.get(2)).toMatchObject({ status: "SUCCEEDED" });
    expect(await w.store.get(3)).toMatchObject({ status: "SKIPPED", reason: "duplicate-of:1" });
  });
});

describe("sha256Hex", () => {
  it("gives the FIPS 180-4 test vectors", () => {
    expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")).toBe("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  });

  fcTest.prop([fc.string({ unit: "grapheme", maxLength: 300 })], { numRuns: 300 })("agrees with node:crypto on any text (UTF-8, multi-block)", (text) => {
    expect(sha256Hex(text)).toBe(createHash("sha256").update(text, "utf8").digest("hex"));
  });

  it("agrees with node:crypto at every padding boundary", () => {
    for (let n = 0; n < 200; n++) {
      const text = "é".repeat(n % 7) + "x".repeat(n);
      expect(sha256Hex(text), String(n)).toBe(createHash("sha256").update(text, "utf8").digest("hex"));
    }
  });

  it("only joins the key in includeContent mode", () => {
    const meta = { sndr: "AODB", seqn: 5, dttm: "20260305020000", type: "FLOP", styp: "ESTT" };
    expect(Identity.of(meta, { includeDayBoundary: false }, "ab")).toBe(KEY);
    expect(Identity.of(meta, { includeDayBoundary: true, includeContent: true }, "ab")).toBe(`${KEY}|20260305|20260305020000|ab`);
  });
});
