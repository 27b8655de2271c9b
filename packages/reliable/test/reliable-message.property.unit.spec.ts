/**
 * The reliable-message service under crashes and faults (SPEC §4): random interleavings of
 * payment producers (prepare → business → confirm, or cancel) that crash at any step or lose
 * answers, store outages, a checker that answers, stalls or fails, the check-back and recovery
 * jobs, the outbox relay (lost broker acks, restarts) and an accounting consumer that fails,
 * crashes between its commit and its acknowledgement, or cannot acknowledge. Then the run is
 * settled (faults healed, clock moving) and the outcome is compared with the producers' business
 * table.
 */
import { fc, it } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { DeliveryStatus } from "@msgx/core";
import { ChaosWorld, emptyCoverage, type ChaosCmd, type Coverage, type OrderPlan } from "./rm-chaos-world.js";

/** Runs per property; `MSGX_MODEL_RUNS` and `MSGX_SEED` reproduce or deepen a run, as for the pipeline model. */
const NUM_RUNS = Number(process.env["MSGX_MODEL_RUNS"] ?? 400);
const runs = { chaos: 0, crashBeforeConfirm: 0 };
const covered: Coverage = emptyCoverage();

const cmdArb: fc.Arbitrary<ChaosCmd> = fc.oneof(
  { weight: 12, arbitrary: fc.record({ t: fc.constant("produce" as const), order: fc.nat(20) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("crashProducer" as const), order: fc.nat(20) }) },
  { weight: 2, arbitrary: fc.constant({ t: "loseNextAnswer" as const }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("storeFailsNext" as const), n: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("checkerMood" as const), mood: fc.constantFrom("answer" as const, "later" as const, "throw" as const) }) },
  { weight: 3, arbitrary: fc.constant({ t: "checkBack" as const }) },
  { weight: 3, arbitrary: fc.constant({ t: "recovery" as const }) },
  { weight: 4, arbitrary: fc.constant({ t: "dispatch" as const }) },
  { weight: 1, arbitrary: fc.constant({ t: "restartDispatcher" as const }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("loseBrokerAcks" as const), n: fc.integer({ min: 1, max: 2 }) }) },
  { weight: 4, arbitrary: fc.record({ t: fc.constant("consume" as const), n: fc.integer({ min: 1, max: 4 }) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("handlerFailsNext" as const), n: fc.integer({ min: 1, max: 5 }) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("ackFailsNext" as const), n: fc.integer({ min: 1, max: 2 }) }) },
  {
    weight: 1,
    arbitrary: fc.record({ t: fc.constant("crashConsumer" as const), at: fc.constantFrom("consume.after-commit" as const, "consume.after-ack" as const) }),
  },
  { weight: 4, arbitrary: fc.record({ t: fc.constant("advance" as const), ms: fc.integer({ min: 0, max: 20 * 60_000 }) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("consumerDown" as const), rounds: fc.integer({ min: 1, max: 8 }) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("brokerOutage" as const), rounds: fc.integer({ min: 1, max: 8 }) }) },
);
const planArb: fc.Arbitrary<OrderPlan> = fc.record({ commits: fc.integer({ min: 0, max: 3 }).map((n) => n > 0), retries: fc.boolean() });

function add(into: Coverage, from: Coverage): void {
  for (const k of Object.keys(into) as (keyof Coverage)[]) into[k] += from[k];
}

describe("reliable-message properties", () => {
  it.prop([fc.array(planArb, { minLength: 1, maxLength: 6 }), fc.array(cmdArb, { minLength: 10, maxLength: 90, size: "medium" })], {
    numRuns: NUM_RUNS,
    ...(process.env["MSGX_SEED"] ? { seed: Number(process.env["MSGX_SEED"]) } : {}),
  })(
    "crashes, lost answers and redeliveries: committed business consumed exactly once in effect and acknowledged, rolled back cancelled, nothing left waiting",
    async (plans, cmds) => {
      runs.chaos += 1;
      const w = new ChaosWorld(plans);
      for (const cmd of cmds) await w.run(cmd);
      if (w.stages.some((s, i) => s === "crashed" && w.payments.get(ChaosWorld.orderNo(i)) === "PAID")) runs.crashBeforeConfirm += 1;
      await w.settle();

      expect(w.outageViolations).toEqual([]);
      for (let i = 0; i < plans.length; i++) {
        const id = ChaosWorld.messageId(i);
        const paid = w.payments.get(ChaosWorld.orderNo(i)) === "PAID";
        // Committed business: delivered and booked exactly once; otherwise never booked.
        expect(w.ledger.get(id) ?? 0, `${id} (${w.stages[i]}, ${paid ? "paid" : "not paid"})`).toBe(paid ? 1 : 0);
        expect(w.consumeLog.entries.has(id)).toBe(paid);
        if (paid) w.coverage.paid += 1;
        else w.coverage.notPaid += 1;
      }
      // Nothing stays WAITING_CONFIRM, REVIEW, SENDING or DEAD: every prepared message ends
      // ACKNOWLEDGED when its business committed and CANCELLED when it did not (a producer that
      // crashed before preparing left no message).
      for (const m of w.store.messages.values()) {
        const paid = w.payments.get(m.field1!) === "PAID";
        expect(`${m.messageId} ${m.status} dead=${m.dead}`).toBe(`${m.messageId} ${paid ? "ACKNOWLEDGED" : "CANCELLED"} dead=false`);
      }
      for (let i = 0; i < plans.length; i++) {
        if (w.payments.get(ChaosWorld.orderNo(i)) === "PAID") expect(w.store.messages.get(ChaosWorld.messageId(i))?.status).toBe("ACKNOWLEDGED");
      }
      expect(w.outbox.events.filter((e) => e.status !== DeliveryStatus.SENT)).toEqual([]);
      // Every send on the broker (dead letters included) belongs to a paid order: an unconfirmed
      // message is never sent.
      const sent = new Set([...w.broker.records("rmq.accounting"), ...w.broker.records("rmq-dlq.accounting")].map((r) => r.key));
      for (const id of sent) expect(w.ledger.get(id!)).toBe(1);
      // Retention: the purge takes every finished message, and then nothing is left.
      await w.service.purgeFinished(w.clock.now() + 1, 1_000);
      expect(w.store.messages.size).toBe(0);
      add(covered, w.coverage);
    },
  );

  it(`ran at least 200 cases (configured ${NUM_RUNS}) and exercised every path`, () => {
    expect(runs.chaos).toBeGreaterThanOrEqual(Math.min(200, NUM_RUNS));
    for (const k of Object.keys(covered) as (keyof Coverage)[]) expect(covered[k], k).toBeGreaterThan(0);
    expect(runs.crashBeforeConfirm).toBeGreaterThan(0);
    console.info(`reliable-message property runs: ${JSON.stringify(runs)}; covered: ${JSON.stringify(covered)}`);
  });
});
