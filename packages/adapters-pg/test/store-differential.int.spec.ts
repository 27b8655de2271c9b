/**
 * Differential property (STYLE §5): the same random command sequence — enqueues, decisions of
 * every shape applied in fenced and unfenced transactions, identity bindings (some colliding),
 * backfill todo registration/completion/deferral, audits, clock moves, epoch bumps, and every read
 * of the port — against the in-memory store (the oracle) and PostgreSQL gives the same results,
 * command by command, and the same final tables.
 */
import { evolveProc, newProcRecord, type ProcEvent } from "@msgx/core/testing";
import { isMsgxError, DEFAULT_RETRY_POLICY, emptyRunDecision, type Clock, type FlightState, type OutboxEventDraft, type PipelineStore, type ProcRecord, type RunDecision } from "@msgx/core";
import { arbFlightRecord, gateService, InMemoryPipelineStore, ManualClock } from "@msgx/core/testing";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshPgSchema, probePostgres, SharedPglite, type PgTestDb } from "./pg-harness.js";
import { fakeSnapshot, pgSnapshot, type StoreSnapshot } from "./pump-drive.js";

const gate = await gateService("PostgreSQL", "adapters-pg: store differential", probePostgres);
const RUNS = Number(process.env["MSGX_PG_PROPERTY_RUNS"] ?? 20);

const KEYS = ["AODB|FLOP|ESTT|1", "AODB|FLOP|ESTT|2", "AODB|SCHD|ADFT|3", "K4", "K5"];
const FLIDS = ["900101", "900102", "77", "1234567890123"];

/** The random part of a command; decisions are completed against the oracle's state when run. */
type Op =
  | { op: "enqueue"; ids: number[]; horizon: number }
  | { op: "apply"; picks: { index: number; event: ProcEvent; key: number | null }[]; ghost: boolean; bindings: { key: number; msgId: number }[];
      flights: FlightState[]; events: OutboxEventDraft[]; backfill: { msgId: number; processedAt: number }[]; fence: "none" | "current" | "stale" }
  | { op: "bump" }
  | { op: "advance"; ms: number }
  | { op: "due"; ahead: number; limit: number }
  | { op: "complete"; ids: number[] }
  | { op: "defer"; limit: number; attempts: number; delay: number; error: string | null }
  | { op: "audit"; operator: string; ids: number[] }
  | { op: "read"; from: number; limit: number; status: ProcRecord["status"] | null };

const arbEvent: fc.Arbitrary<ProcEvent> = fc.oneof(
  fc.constant({ type: "succeeded" as const }),
  fc.string({ maxLength: 8 }).map((reason) => ({ type: "succeeded" as const, reason })),
  fc.constantFrom("duplicate-of:1", "ignored:LDM").map((reason) => ({ type: "skipped" as const, reason })),
  fc.constantFrom("MALFORMED" as const, "PROTOCOL" as const).map((errorClass) => ({ type: "rejected" as const, errorClass, reason: `bad ${errorClass} ü` })),
  fc.constantFrom("CODEC_ERROR" as const, "UNSUPPORTED" as const, "INFRA" as const).map((errorClass) => ({ type: "failed" as const, errorClass, reason: "x" })),
  fc.constant({ type: "exhausted" as const, reason: "held too long" }),
  fc.constant({ type: "replayed" as const }),
);

const arbFlight: fc.Arbitrary<FlightState> = fc
  .record({
    record: arbFlightRecord(),
    flid: fc.constantFrom(...FLIDS),
    day: fc.option(fc.constantFrom("20260305", "20260306"), { nil: null }),
    version: fc.nat({ max: 50 }),
    deleted: fc.boolean(),
  })
  .map(({ record, flid, day, version, deleted }) => ({
    flid,
    ffid: record.ffid ?? null,
    operationDay: day,
    stateVersion: version,
    lastMsgId: version * 3,
    lastSrcDttm: "20260305020000",
    deleted,
    scalars: record.scalars,
    collections: record.collections,
  }));

const arbDraft: fc.Arbitrary<OutboxEventDraft> = fc.record({
  target: fc.constantFrom("KAFKA:msg", "KAFKA:schd"),
  partitionKey: fc.constantFrom(...FLIDS),
  eventType: fc.constantFrom("UPSERT" as const, "TOMBSTONE" as const),
  stateVersion: fc.nat({ max: 99 }),
  // A payload as JSON carries it (jsonb, then the record value): -0 has no JSON form and reads back as 0.
  payload: fc.oneof(fc.constant(null), fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown)),
  sourceMsgId: fc.integer({ min: 1, max: 30 }),
  traceparent: fc.option(fc.constant("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"), { nil: undefined }),
});

const id = fc.integer({ min: 1, max: 30 });
const arbOp: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ op: fc.constant("enqueue" as const), ids: fc.array(id, { maxLength: 6 }), horizon: fc.nat({ max: 40 }) }) },
  {
    weight: 6,
    arbitrary: fc.record({
      op: fc.constant("apply" as const),
      picks: fc.array(fc.record({ index: fc.nat(), event: arbEvent, key: fc.option(fc.nat({ max: KEYS.length - 1 }), { nil: null }) }), { maxLength: 4 }),
      ghost: fc.nat({ max: 4 }).map((n) => n === 0),
      bindings: fc.array(fc.record({ key: fc.nat({ max: KEYS.length - 1 }), msgId: id }), { maxLength: 2 }),
      flights: fc.array(arbFlight, { maxLength: 2 }),
      events: fc.array(arbDraft, { maxLength: 3 }),
      backfill: fc.array(fc.record({ msgId: id, processedAt: fc.integer({ min: 0, max: 10_000_000 }) }), { maxLength: 3 }),
      fence: fc.constantFrom("none" as const, "current" as const, "stale" as const),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ op: "bump" as const }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("advance" as const), ms: fc.integer({ min: 1, max: 120_000 }) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("due" as const), ahead: fc.integer({ min: 0, max: 100_000 }), limit: fc.integer({ min: 0, max: 5 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("complete" as const), ids: fc.array(id, { maxLength: 4 }) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant("defer" as const),
      limit: fc.integer({ min: 1, max: 3 }),
      attempts: fc.nat({ max: 9 }),
      delay: fc.integer({ min: 1, max: 900_000 }),
      error: fc.option(fc.string({ maxLength: 10 }), { nil: null }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("audit" as const), operator: fc.string({ maxLength: 6 }), ids: fc.array(id, { maxLength: 3 }) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("read" as const),
      from: fc.nat({ max: 31 }),
      limit: fc.integer({ min: 0, max: 10 }),
      status: fc.constantFrom(null, "PENDING" as const, "FAILED" as const, "DEAD" as const, "SUCCEEDED" as const),
    }),
  },
);

const T0 = Date.UTC(2026, 2, 5, 2, 0, 0);
const LEGAL: Record<ProcEvent["type"], readonly string[]> = {
  succeeded: ["PENDING", "FAILED"],
  skipped: ["PENDING", "FAILED"],
  rejected: ["PENDING", "FAILED"],
  failed: ["PENDING", "FAILED"],
  exhausted: ["PENDING", "FAILED"],
  replayed: ["FAILED", "DEAD"],
};

/** Completes an `apply` op into a decision against the oracle's committed state. */
function materialize(op: Extract<Op, { op: "apply" }>, fake: InMemoryPipelineStore, now: number): RunDecision {
  const recs = [...fake.tables.records.values()].sort((a, b) => a.msgId - b.msgId);
  const records: ProcRecord[] = [];
  for (const p of op.picks) {
    const r = recs[p.index % Math.max(1, recs.length)];
    if (r === undefined || !LEGAL[p.event.type].includes(r.status) || records.some((x) => x.msgId === r.msgId)) continue;
    const identityKey = p.key === null ? undefined : KEYS[p.key];
    records.push(
      evolveProc(r, p.event, { now, ...(identityKey ? { identityKey, meta: { sndr: "AODB", seqn: r.msgId, dttm: "20260305020000", type: "FLOP", styp: "ESTT" } } : {}) }, DEFAULT_RETRY_POLICY),
    );
  }
  if (op.ghost) records.push(newProcRecord(999, T0, now));
  return {
    records,
    bindings: op.bindings.map((b) => ({ identityKey: KEYS[b.key]!, msgId: b.msgId })),
    flights: op.flights,
    events: op.events,
    backfill: op.backfill.map((b) => ({ msgId: b.msgId, processedAt: T0 + b.processedAt, meta: b.msgId % 2 === 0 ? null : { sndr: "A", seqn: b.msgId, dttm: "20260305020000", type: "FLOP", styp: "ESTT" } })),
  };
}

/** A result both stores must agree on: the value, or the kind of the error. */
async function outcome<T>(fn: () => Promise<T>): Promise<{ ok: T } | { error: string }> {
  try {
    return { ok: await fn() };
  } catch (e) {
    return { error: isMsgxError(e) ? e.kind : `non-msgx: ${String(e)}` };
  }
}

async function runOp(store: PipelineStore, op: Op, ctx: { decision: RunDecision | undefined; fence: number | undefined; clock: ManualClock; due: readonly unknown[] }) {
  switch (op.op) {
    case "enqueue":
      return outcome(() => store.enqueue(op.ids.map((msgId) => ({ msgId, receivedAt: T0 + msgId })), { horizon: op.horizon }));
    case "apply":
      return outcome(() =>
        store.transaction(async (tx) => {
          const owners = await tx.identityOwners(KEYS);
          const flights = await tx.loadFlights(FLIDS);
          await tx.applyRun(ctx.decision!);
          return { owners: [...owners.entries()].sort(), flights: [...flights.values()].sort((a, b) => (a.flid < b.flid ? -1 : 1)) };
        }, ctx.fence === undefined ? {} : { fence: ctx.fence }),
      );
    case "due":
      return outcome(() => store.dueBackfill(ctx.clock.now() + op.ahead, op.limit));
    case "complete":
      return outcome(() => store.completeBackfill(op.ids));
    case "defer":
      return outcome(async () => {
        const due = await store.dueBackfill(ctx.clock.now() + 10_000_000, op.limit);
        await store.deferBackfill(due.map((t) => ({ ...t, attempts: op.attempts, nextAttemptAt: ctx.clock.now() + op.delay, lastError: op.error })));
        return due;
      });
    case "audit":
      return outcome(async () => {
        await store.transaction((tx) => tx.appendAudit({ at: ctx.clock.now(), operator: op.operator, action: "replay", msgIds: op.ids, detail: "{}" }));
        return store.audits(3);
      });
    case "read":
      return outcome(async () => ({
        head: await store.head(),
        unfinished: await store.unfinished(op.from, op.limit),
        list: await store.list({ ...(op.status ? { statuses: [op.status] } : {}), afterMsgId: op.from, limit: op.limit }),
        byClass: await store.list({ errorClasses: ["INFRA", "PROTOCOL"] }),
        get: await store.get(op.from),
        intake: await store.intakeState(),
      }));
    case "bump":
    case "advance":
      return { ok: null };
  }
}

/** Event ids may have gaps in PostgreSQL (a rolled-back insert still draws from the sequence): compare ranks. */
const ranked = (s: StoreSnapshot): StoreSnapshot => ({ ...s, events: s.events.map((e, i) => ({ ...e, eventId: i + 1 })) });

/** The property over one backend: `open` gives a migrated schema whose store reads `clock()`. */
function differential(open: (clock: Clock) => Promise<Pick<PgTestDb, "store" | "db" | "bumpEpoch" | "reset" | "close">>) {
  let t: Awaited<ReturnType<typeof open>>;
  let clock: ManualClock;
  beforeAll(async () => {
    clock = new ManualClock(T0);
    t = await open({ now: () => clock.now(), monotonic: () => clock.monotonic() });
  });
  afterAll(() => t.close());

  it("gives the same results for the same random command sequences", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(arbOp, { minLength: 1, maxLength: 40, size: "max" }), async (ops) => {
        await t.reset();
        clock = new ManualClock(T0);
        const fake = new InMemoryPipelineStore(clock);
        const pg = t.store;
        for (const [i, op] of ops.entries()) {
          if (op.op === "advance") clock.advance(op.ms);
          if (op.op === "bump") {
            fake.tables.epoch += 1;
            expect(await t.bumpEpoch()).toBe(fake.tables.epoch);
          }
          const epoch = fake.tables.epoch;
          const stale = op.op === "apply" && op.fence === "stale";
          const ctx = {
            clock,
            due: [],
            // A stale fence comes with an empty decision: the stores may check the fence before or after the body.
            decision: op.op === "apply" ? (stale ? emptyRunDecision : materialize(op, fake, clock.now())) : undefined,
            fence: op.op === "apply" && op.fence !== "none" ? (stale ? epoch + 1 : epoch) : undefined,
          };
          const expected = await runOp(fake, op, ctx);
          const actual = await runOp(pg, op, ctx);
          expect(actual, `command ${i}: ${op.op}`).toEqual(expected);
        }
        expect(ranked(await pgSnapshot(pg, t.db))).toEqual(ranked(fakeSnapshot(fake)));
        expect(await pg.audits(100)).toEqual(await fake.audits(100));
        expect(await pg.intakeState()).toEqual(await fake.intakeState());
      }),
      { numRuns: RUNS },
    );
  });
}

describe.skipIf(!gate.available)("PgPipelineStore on PostgreSQL against the in-memory store", () => {
  differential((clock) => freshPgSchema({ clock }));
});

describe("PgPipelineStore on PGlite against the in-memory store", () => {
  const shared = new SharedPglite();
  beforeAll(() => shared.open());
  afterAll(() => shared.close());
  differential((clock) => shared.freshSchema({ clock }));
});
