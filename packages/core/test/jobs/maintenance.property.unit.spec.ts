/**
 * Property: the history sweep and the PROC_STATE archive, interleaved at random with pipeline
 * traffic (flights created, changed, deleted; identities re-sent; days passing; jobs racing the
 * pump), never lose dedupe and never retire a flight twice or tombstone it twice.
 * `MSGX_SEED` / `MSGX_MODEL_RUNS` reproduce a run.
 */
import { isTerminal } from "@msgx/core/testing";
import { retirementCutoffDay, type ProcRecord } from "@msgx/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MaintenanceWorld, sis, sodtMarch } from "./maintenance-world.js";

const HOUR = 3_600_000;
const START = Date.UTC(2026, 2, 5, 2, 0);
const RETENTION_DAYS = 1;
const RUNS = Number(process.env["MSGX_MODEL_RUNS"] ?? 300);
const SEED = process.env["MSGX_SEED"] === undefined ? Date.now() ^ (Math.random() * 2 ** 31) : Number(process.env["MSGX_SEED"]);

type Command =
  | { readonly kind: "adft"; readonly flid: string; readonly day: number }
  | { readonly kind: "estt" | "fdel"; readonly flid: string }
  | { readonly kind: "ldm" }
  | { readonly kind: "resend"; readonly pick: number }
  | { readonly kind: "settle" | "sweep" | "archive" | "race" | "reconcile" }
  | { readonly kind: "advance"; readonly hours: number };

const flid = fc.constantFrom("101", "102", "103", "104");
const command: fc.Arbitrary<Command> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant("adft" as const), flid, day: fc.integer({ min: 1, max: 10 }) }), weight: 4 },
  { arbitrary: fc.record({ kind: fc.constantFrom("estt" as const, "fdel" as const), flid }), weight: 3 },
  { arbitrary: fc.constant({ kind: "ldm" as const }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant("resend" as const), pick: fc.nat() }), weight: 4 },
  { arbitrary: fc.constantFrom<Command>({ kind: "settle" }, { kind: "sweep" }, { kind: "archive" }, { kind: "race" }, { kind: "reconcile" }), weight: 5 },
  { arbitrary: fc.record({ kind: fc.constant("advance" as const), hours: fc.integer({ min: 1, max: 60 }) }), weight: 3 },
);

/** What the test sent: each mailbox id with its SEQN (the identity; a re-send repeats it). */
interface Sent {
  readonly msgId: number;
  readonly seqn: number;
  readonly raw: string;
}

/** Yields `n` macrotask turns, taking each `n` from the run's cycle of yields. */
function jitterFrom(yields: readonly number[]): () => Promise<void> {
  let i = 0;
  return async () => {
    const n = yields.length === 0 ? 0 : yields[i++ % yields.length]!;
    for (let k = 0; k < n; k++) await new Promise((resolve) => setImmediate(resolve));
  };
}

async function run(commands: readonly Command[], yields: readonly number[]): Promise<void> {
  const w = new MaintenanceWorld({
    jitter: jitterFrom(yields),
    start: START,
    history: { retentionDays: RETENTION_DAYS, batchSize: 2 },
    archive: { retentionMs: 6 * HOUR, keepLastIds: 0, batchSize: 3 },
    reconciler: { windowSize: 50, pageSize: 20 },
  });
  const sent: Sent[] = [];
  let seqn = 0;
  const send = (raw: (s: number) => string) => {
    const s = ++seqn;
    const text = raw(s);
    sent.push({ msgId: w.send(text), seqn: s, raw: text });
  };
  const drain = (step: () => Promise<{ readonly more: boolean }>) => MaintenanceWorld.drain(step);

  for (const c of commands) {
    const now = w.clock.now();
    switch (c.kind) {
      case "adft":
        send((s) => sis.adft(s, c.flid, sodtMarch(c.day), now));
        break;
      case "estt":
        send((s) => sis.estt(s, c.flid, now));
        break;
      case "fdel":
        send((s) => sis.fdel(s, c.flid, now));
        break;
      case "ldm":
        send((s) => sis.ldm(s, now));
        break;
      case "resend": {
        const original = sent[c.pick % Math.max(1, sent.length)];
        if (original !== undefined) sent.push({ msgId: w.send(original.raw), seqn: original.seqn, raw: original.raw });
        break;
      }
      case "settle":
        await w.settle();
        break;
      case "sweep":
        await w.history.step();
        break;
      case "archive":
        await w.archiver.step();
        break;
      case "race":
        // The jobs' transactions and the pump's runs queue on the same lock, in any order.
        await Promise.all([w.settle(), drain(() => w.history.step()), drain(() => w.archiver.step()), drain(() => w.reconciler.step())]);
        break;
      case "reconcile":
        await drain(() => w.reconciler.step());
        break;
      case "advance":
        w.clock.advance(c.hours * HOUR);
        break;
    }
  }
  await w.settle();
  await w.backfill.step();

  // Every message has exactly one record, live or archived, and it is terminal; the archive never
  // holds an unfinished one.
  const recordOf = new Map<number, ProcRecord>();
  for (const s of sent) {
    const live = await w.pipeline.get(s.msgId);
    const archived = w.pipeline.archive.get(s.msgId)?.record;
    expect(live === undefined || archived === undefined, `message ${s.msgId} both live and archived`).toBe(true);
    const r = live ?? archived;
    expect(r, `message ${s.msgId} lost`).toBeDefined();
    expect(isTerminal(r!.status)).toBe(true);
    recordOf.set(s.msgId, r!);
  }

  // Dedupe: the first carrier of an identity owns it; every later one ends SKIPPED duplicate-of
  // it, whether the owner was archived before or not.
  const owner = new Map<number, number>();
  for (const s of sent) {
    const first = owner.get(s.seqn);
    if (first === undefined) {
      owner.set(s.seqn, s.msgId);
      expect(recordOf.get(s.msgId)!.reason ?? "").not.toMatch(/^duplicate-of:/);
    } else {
      expect(recordOf.get(s.msgId)).toMatchObject({ status: "SKIPPED", reason: `duplicate-of:${first}` });
    }
  }

  // FIFO is untouched: terminal transitions in mailbox id order.
  const order = w.pipeline.tables.terminalLog.map((t) => t.msgId);
  expect(order).toEqual([...order].sort((a, b) => a - b));

  // Per FLID, the change stream never carries two tombstones in a row (FDEL then retirement, or a
  // retirement twice), and the compacted stream neither.
  const msgEvents = w.pipeline.tables.events;
  for (const target of ["KAFKA:msg", "KAFKA:schd"]) {
    const last = new Map<string, string>();
    for (const e of msgEvents.filter((x) => x.target === target)) {
      if (e.eventType === "TOMBSTONE") expect(last.get(e.partitionKey), `second tombstone of ${e.partitionKey} on ${target}`).not.toBe("TOMBSTONE");
      last.set(e.partitionKey, e.eventType);
    }
  }

  // A flight retires at most once per life: lives = creations (an UPSERT that is the FLID's first
  // event, or follows the event at which a life retired); every life ended in exactly one
  // retirement unless it is still live; each retirement was due. And across lives the version
  // per FLID on msg only rises: a new life counts on above its retirement (docs/events.md).
  const history = w.store.tables.flightHistory;
  for (const f of ["101", "102", "103", "104"]) {
    const retired = history.filter((h) => h.flid === f);
    const endVersions = new Set(retired.map((h) => h.tombstoneVersion ?? h.finalState.stateVersion));
    const stream = msgEvents.filter((e) => e.target === "KAFKA:msg" && e.partitionKey === f);
    const lives = stream.filter((e, i) => e.eventType === "UPSERT" && (i === 0 || endVersions.has(stream[i - 1]!.stateVersion))).length;
    if (lives > 1) livesAfterRetirement += lives - 1;
    for (let i = 1; i < stream.length; i++) {
      expect(stream[i]!.stateVersion, `version of ${f} after v${stream[i - 1]!.stateVersion}`).toBe(stream[i - 1]!.stateVersion + 1);
    }
    expect(retired.length + (w.pipeline.tables.flights.has(f) ? 1 : 0), `lives of ${f}`).toBe(lives);
    for (const h of retired) {
      expect(h.operationDay < retirementCutoffDay(h.retiredAt, { retentionDays: RETENTION_DAYS, airportUtcOffsetMinutes: 480 })).toBe(true);
      expect(h.tombstoneVersion === null).toBe(h.finalState.deleted);
      if (h.tombstoneVersion !== null) {
        for (const target of ["KAFKA:msg", "KAFKA:schd"]) {
          const t = msgEvents.some((e) => e.target === target && e.partitionKey === f && e.eventType === "TOMBSTONE" && e.stateVersion === h.tombstoneVersion);
          expect(t, `retirement tombstone of ${f} v${h.tombstoneVersion} on ${target}`).toBe(true);
        }
      }
    }
  }
}

/** Flights stated again after they retired, over all runs: the property must reach that case. */
let livesAfterRetirement = 0;

describe("maintenance jobs amid pipeline traffic (property)", () => {
  it(`never lose dedupe, never retire or tombstone a flight twice (seed ${SEED})`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 10, maxLength: 80 }), fc.array(fc.nat(3), { maxLength: 16 }), (commands, yields) => run(commands, yields)),
      { numRuns: RUNS, seed: SEED },
    );
    console.info(`[maintenance property] ${RUNS} runs, ${livesAfterRetirement} flights lived again after retiring`);
    expect(livesAfterRetirement).toBeGreaterThan(0);
  });
});
