import { isMsgxError } from "@msgx/core";
import { DeliveryStatus } from "@msgx/core";
import { SimulatedCrashMarker } from "@msgx/core";
import type { CheckVerdict } from "../src/check-back-job.js";
import { InMemoryConsumeLog, type InMemoryConsumerTx } from "../src/in-memory-consume-log.js";
import { ReliableMessageConsumer, type ConsumerFailpoint } from "../src/reliable-message-consumer.js";
import { isReliableMessageError } from "../src/reliable-message-error.js";
import { isFinishedStatus } from "../src/reliable-message.js";
import { reliableMessageDlqTarget } from "../src/message-envelope.js";
import { RmWorld } from "./rm-world.js";

const MIN = 60_000;
export const QUEUE = "accounting";
const TOPIC = `rmq.${QUEUE}`;

/** Where a producer is in prepare → business → confirm/cancel. */
export type ProducerStage = "new" | "prepared" | "paid" | "rolled-back" | "done" | "crashed";

export interface OrderPlan {
  /** Whether the business transaction commits when the producer gets to it (unless fenced). */
  readonly commits: boolean;
  /** After an error whose outcome is unknown (lost answer, outage), retry the step or give up. */
  readonly retries: boolean;
}

/** One step of the chaos phase. */
export type ChaosCmd =
  | { readonly t: "produce"; readonly order: number }
  | { readonly t: "crashProducer"; readonly order: number }
  | { readonly t: "loseNextAnswer" }
  | { readonly t: "storeFailsNext"; readonly n: number }
  | { readonly t: "checkerMood"; readonly mood: "answer" | "later" | "throw" }
  | { readonly t: "checkBack" }
  | { readonly t: "recovery" }
  | { readonly t: "dispatch" }
  | { readonly t: "restartDispatcher" }
  | { readonly t: "loseBrokerAcks"; readonly n: number }
  | { readonly t: "consume"; readonly n: number }
  | { readonly t: "handlerFailsNext"; readonly n: number }
  | { readonly t: "ackFailsNext"; readonly n: number }
  | { readonly t: "crashConsumer"; readonly at: ConsumerFailpoint }
  | { readonly t: "advance"; readonly ms: number }
  /** Hours pass with the consumer down: the jobs and the relay keep running, nobody consumes. */
  | { readonly t: "consumerDown"; readonly rounds: number }
  /** The broker is down for rounds × 10 minutes while the jobs and the relay keep running. */
  | { readonly t: "brokerOutage"; readonly rounds: number };

/** What a run exercised, summed over runs and reported (a property that exercises nothing proves nothing). */
export interface Coverage {
  orders: number;
  paid: number;
  notPaid: number;
  fencedByCheckBack: number;
  producerCrashes: number;
  lostAnswers: number;
  confirmedByCheckBack: number;
  deletedByCheckBack: number;
  deferredChecks: number;
  resentByRecovery: number;
  deadRevivedByOperator: number;
  duplicatesConsumed: number;
  handlerFailures: number;
  consumerCrashes: number;
  ackFailures: number;
  rejects: number;
  redelivered: number;
  outageRechecks: number;
  deadLetters: number;
}

export const emptyCoverage = (): Coverage => ({
  orders: 0,
  paid: 0,
  notPaid: 0,
  fencedByCheckBack: 0,
  producerCrashes: 0,
  lostAnswers: 0,
  confirmedByCheckBack: 0,
  deletedByCheckBack: 0,
  deferredChecks: 0,
  resentByRecovery: 0,
  deadRevivedByOperator: 0,
  duplicatesConsumed: 0,
  handlerFailures: 0,
  consumerCrashes: 0,
  ackFailures: 0,
  rejects: 0,
  redelivered: 0,
  outageRechecks: 0,
  deadLetters: 0,
});

/**
 * The seed's payment scenario over the fakes: producers (prepare → pay → confirm, or cancel),
 * the payment checker, the service's jobs and relay, and an accounting consumer reading the
 * broker with its own offset and its own database (ledger + consume log).
 */
export class ChaosWorld extends RmWorld {
  /** The producer's business table: the order's payment, or the checker's fence. */
  readonly payments = new Map<string, "PAID" | "ABORTED">();
  readonly stages: ProducerStage[];
  readonly consumeLog = new InMemoryConsumeLog();
  /** How many times each message was booked by the consumer's committed transactions. */
  readonly ledger = new Map<string, number>();
  readonly consumer: ReliableMessageConsumer<InMemoryConsumerTx>;
  readonly coverage = emptyCoverage();
  offset = 0;
  /** Messages that went DEAD in a broker outage without a broker-acknowledged send before it (must stay empty). */
  readonly outageViolations: string[] = [];
  /** The consumer's try number for the record at `offset` (its in-process retry budget). */
  attempt = 1;
  mood: "answer" | "later" | "throw" = "answer";
  #handlerFailures = 0;
  #ackFailures = 0;
  #crashAt: ConsumerFailpoint | null = null;

  constructor(readonly plans: readonly OrderPlan[]) {
    super([QUEUE], { checkAfterMs: MIN, checkIntervalMs: MIN, maxChecks: 5, maxCheckIntervalMs: 30 * MIN, maxRejects: 2, rejectWaitsMs: [MIN] });
    this.stages = plans.map(() => "new");
    this.coverage.orders = plans.length;
    this.checkBack.registerChecker(QUEUE, async (m) => this.#check(m.field1!));
    this.consumer = new ReliableMessageConsumer<InMemoryConsumerTx>({
      log: this.consumeLog,
      clock: this.clock,
      queue: QUEUE,
      handler: async (m, tx) => {
        if (this.#handlerFailures > 0) {
          this.#handlerFailures -= 1;
          this.coverage.handlerFailures += 1;
          throw new Error("accounting: voucher insert failed (simulated)");
        }
        tx.stage(() => this.ledger.set(m.messageId, (this.ledger.get(m.messageId) ?? 0) + 1));
      },
      acknowledge: async (id) => {
        if (this.#ackFailures > 0) {
          this.#ackFailures -= 1;
          this.coverage.ackFailures += 1;
          throw new Error("message service unreachable (simulated)");
        }
        await this.service.acknowledge(id);
      },
      // Two tries per delivery, then the service's reject: redelivered after a minute, DEAD (and
      // dead-lettered) at the second reject, replayed by the operator in `settle`.
      maxAttempts: 2,
      retryWaitsMs: [0],
      reject: async (id, reason) => {
        this.coverage.rejects += 1;
        await this.service.reject(id, reason);
      },
      failpoint: (name) => {
        if (this.#crashAt === name) {
          this.#crashAt = null;
          this.coverage.consumerCrashes += 1;
          throw new SimulatedCrashMarker(name);
        }
      },
    });
  }

  static messageId = (order: number): string => `PAY-${order}`;
  static orderNo = (order: number): string => `ORDER-${order}`;

  /**
   * The producer's checker. Never answers "delete" while the payment could still commit: an
   * absent payment is fenced first (the ABORTED row takes the order's key, so the producer's
   * payment transaction can no longer commit).
   */
  #check(orderNo: string): CheckVerdict {
    if (this.mood === "throw") throw new Error("payment service down (simulated)");
    if (this.mood === "later") return "later";
    const state = this.payments.get(orderNo);
    if (state === "PAID") return "confirm";
    if (state === undefined) {
      this.payments.set(orderNo, "ABORTED");
      this.coverage.fencedByCheckBack += 1;
    }
    return "delete";
  }

  /** Advances one producer by one step; an error of unknown outcome makes it retry or give up. */
  async produce(order: number): Promise<void> {
    const stage = this.stages[order]!;
    const plan = this.plans[order]!;
    const id = ChaosWorld.messageId(order);
    const orderNo = ChaosWorld.orderNo(order);
    try {
      switch (stage) {
        case "new":
          await this.service.saveWaitingConfirm({ messageId: id, body: JSON.stringify({ orderNo, amount: order + 1 }), consumerQueue: QUEUE, field1: orderNo });
          this.stages[order] = "prepared";
          return;
        case "prepared": {
          // The business transaction: the payment row under the order's key, unless fenced.
          if (this.payments.has(orderNo) || !plan.commits) {
            this.stages[order] = "rolled-back";
            return;
          }
          this.payments.set(orderNo, "PAID");
          this.stages[order] = "paid";
          return;
        }
        case "paid":
          await this.service.confirmAndSend(id);
          this.stages[order] = "done";
          return;
        case "rolled-back":
          await this.service.cancel(id);
          this.stages[order] = "done";
          return;
        default:
          return;
      }
    } catch (e) {
      if (isMsgxError(e) && e.kind === "COMMIT_UNKNOWN") this.coverage.lostAnswers += 1;
      if (!isMsgxError(e) && !isReliableMessageError(e)) throw e;
      if (!plan.retries || isReliableMessageError(e)) this.stages[order] = "crashed";
    }
  }

  async run(cmd: ChaosCmd): Promise<void> {
    switch (cmd.t) {
      case "produce":
        return this.produce(cmd.order % this.plans.length);
      case "crashProducer": {
        const i = cmd.order % this.plans.length;
        if (this.stages[i] !== "done" && this.stages[i] !== "crashed") {
          this.stages[i] = "crashed";
          this.coverage.producerCrashes += 1;
        }
        return;
      }
      case "loseNextAnswer":
        this.store.commitUnknownNext = true;
        return;
      case "storeFailsNext":
        this.db.faults.failNext("rm.commit", cmd.n, "DEPENDENCY_UNAVAILABLE");
        return;
      case "checkerMood":
        this.mood = cmd.mood;
        return;
      case "checkBack":
        return this.#job(async () => {
          const s = await this.checkBack.step();
          this.coverage.confirmedByCheckBack += s.confirmed;
          this.coverage.deletedByCheckBack += s.deleted;
          this.coverage.deferredChecks += s.deferred;
        });
      case "recovery":
        return this.#job(async () => this.#recover());
      case "dispatch":
        await this.dispatchers.get(QUEUE)!.step();
        return;
      case "restartDispatcher":
        (this.dispatchers as Map<string, ReturnType<RmWorld["newDispatcher"]>>).set(QUEUE, this.newDispatcher(QUEUE));
        return;
      case "loseBrokerAcks":
        this.broker.loseNextAcks(cmd.n);
        return;
      case "consume":
        for (let i = 0; i < cmd.n; i++) await this.consumeOne();
        return;
      case "handlerFailsNext":
        this.#handlerFailures = cmd.n;
        return;
      case "ackFailsNext":
        this.#ackFailures = cmd.n;
        return;
      case "crashConsumer":
        this.#crashAt = cmd.at;
        return;
      case "advance":
        this.clock.advance(cmd.ms);
        return;
      case "consumerDown":
        for (let i = 0; i < cmd.rounds; i++) {
          this.clock.advance(20 * MIN);
          await this.run({ t: "checkBack" });
          await this.run({ t: "recovery" });
          await this.run({ t: "dispatch" });
        }
        return;
      case "brokerOutage": {
        // SPEC: an outage never makes anything DEAD. Only a message whose last send the broker
        // had acknowledged before the outage may die during it (its wait ran out).
        const ackedBefore = new Set(
          [...this.store.messages.values()]
            .filter((m) => m.lastEventId !== null && this.outbox.events.find((e) => e.eventId === m.lastEventId)?.status === DeliveryStatus.SENT)
            .map((m) => m.messageId),
        );
        const deadBefore = new Set([...this.store.messages.values()].filter((m) => m.dead).map((m) => m.messageId));
        this.broker.faults.setDown(true);
        for (let i = 0; i < cmd.rounds; i++) {
          this.clock.advance(10 * MIN);
          await this.run({ t: "checkBack" });
          await this.run({ t: "recovery" });
          await this.run({ t: "dispatch" });
        }
        this.broker.faults.setDown(false);
        for (const m of this.store.messages.values()) {
          if (m.dead && !deadBefore.has(m.messageId) && !ackedBefore.has(m.messageId)) this.outageViolations.push(`${m.messageId} died in a broker outage: ${m.lastError}`);
        }
        return;
      }
    }
  }

  /** Handles the record at the consumer's offset; the offset moves only after a clean handle (at least once). */
  async consumeOne(): Promise<boolean> {
    const record = this.broker.records(TOPIC)[this.offset];
    if (record === undefined) return false;
    try {
      const outcome = await this.consumer.handle(record.value, this.attempt);
      if (outcome.kind === "duplicate") this.coverage.duplicatesConsumed += 1;
      if (outcome.kind === "retry") {
        this.attempt = outcome.attempt + 1;
      } else {
        this.offset += 1;
        this.attempt = 1;
      }
    } catch (e) {
      if (!(e instanceof SimulatedCrashMarker) && !isMsgxError(e) && !(e instanceof Error && e.message.includes("simulated"))) throw e;
      // A restarted consumer starts the record's budget again.
      if (e instanceof SimulatedCrashMarker) this.attempt = 1;
    }
    return true;
  }

  async #recover(): Promise<void> {
    const step = await this.recovery.step();
    this.coverage.resentByRecovery += step.resent;
    this.coverage.redelivered += step.redelivered;
    this.coverage.outageRechecks += step.pending;
  }

  /** A job step as the host runs it: a store outage ends the step (the host backs off and retries). */
  async #job(step: () => Promise<void>): Promise<void> {
    try {
      await step();
    } catch (e) {
      if (!isMsgxError(e)) throw e;
    }
  }

  /**
   * After the chaos: faults healed, every live producer finishes, then jobs, relay and consumer run
   * with the clock moving until nothing is left; an operator resends dead letters, as the runbook says.
   */
  async settle(): Promise<void> {
    this.db.faults.clear();
    this.store.commitUnknownNext = false;
    this.broker.faults.clear();
    this.mood = "answer";
    this.#handlerFailures = 0;
    this.#ackFailures = 0;
    this.#crashAt = null;
    for (let i = 0; i < this.plans.length; i++) {
      for (let k = 0; k < 4; k++) await this.produce(i);
    }
    for (let round = 0; round < 60; round++) {
      for (let more = true; more; ) {
        const s = await this.checkBack.step();
        this.coverage.confirmedByCheckBack += s.confirmed;
        this.coverage.deletedByCheckBack += s.deleted;
        this.coverage.deferredChecks += s.deferred;
        more = s.more;
      }
      await this.#recover();
      this.coverage.deadRevivedByOperator += (await this.service.resendAllDeadByQueue(QUEUE, 2)).resent;
      await this.deliverAll();
      while (await this.consumeOne());
      if ([...this.store.messages.values()].every((m) => isFinishedStatus(m.status)) && this.outbox.events.every((e) => e.status === "SENT")) break;
      this.clock.advance(20 * MIN);
    }
    this.coverage.deadLetters = this.outbox.events.filter((e) => e.target === reliableMessageDlqTarget(QUEUE)).length;
  }
}
