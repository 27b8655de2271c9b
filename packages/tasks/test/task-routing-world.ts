/**
 * The whole task-event route over fakes: task service (InMemoryTaskStore writing the pipeline
 * store's outbox, task headers stored on each row), relay (MsgDispatcher per target over
 * InMemoryOutboxStore and InMemoryBroker), and per owner a consumer group (committed offsets, a
 * position that a crash loses), its consume log, handlers and callback sender reporting to the
 * task service through a fault-injecting callback port.
 */
import { MsgDispatcher } from "@msgx/core";
import type { DeliveryFailpoint } from "@msgx/core/testing";
import { MsgxError } from "@msgx/core";
import { DeliveryStatus } from "@msgx/core";
import { silentLogger } from "@msgx/core";
import type { RetryPolicy } from "@msgx/core";
import { SimulatedCrashMarker } from "@msgx/core";
import type { TaskCallbackPort } from "../src/task-callback-port.js";
import { TaskCallbackSender } from "../src/task-callback-sender.js";
import type { ConsumedTaskRecord } from "../src/task-consume-decision.js";
import { TaskHandlerRegistry, type TaskEventHandler } from "../src/task-handler-registry.js";
import { InMemoryTaskConsumeLogStore, type InMemoryTaskTxHandle } from "../src/in-memory-task-consume-log-store.js";
import { InMemoryTaskStore } from "../src/in-memory-task-store.js";
import type { TaskEventMessage } from "../src/task-event.js";
import { TaskEventConsumer, type TaskConsumeFailpoint, type TaskConsumeStep } from "../src/task-event-consumer.js";
import { isTaskRequestError } from "../src/task-request-error.js";
import { taskDeliveryTopics, taskTargets, taskTopic, type TaskRouting } from "../src/task-routing-config.js";
import { TaskService } from "../src/task-service.js";
import { DispatchJob } from "../src/dispatch-job.js";
import { InMemoryTaskDispatcher } from "../src/in-memory-task-dispatcher.js";
import { InMemoryBroker } from "@msgx/core/fakes";
import { InMemoryOutboxStore } from "@msgx/core/fakes";
import { InMemoryPipelineStore } from "@msgx/core/fakes";
import { ManualClock } from "@msgx/core/fakes";

export const OWNERS = ["LMS", "WMS"] as const;
export const HANDLERS: Readonly<Record<string, readonly string[]>> = {
  LMS: ["LMS_STOCK_AREA_CALL_TUBE", "LMS_SLITTER_DOWN_AGV"],
  WMS: ["WMS_INBOUND"],
};
export const HANDLER_POLICY: RetryPolicy = { maxAttempts: 3, initialBackoffMs: 1_000, backoffMultiplier: 2, maxBackoffMs: 4_000, headDeadlineMs: 600_000 };

/** One owner service: its consumer group over the broker, consume log, handlers and effects. */
export class OwnerWorld {
  readonly log = new InMemoryTaskConsumeLogStore();
  /** The business effect: `finish:<taskId>` / `cancel:<taskId>` -> times applied (committed). */
  readonly effects = new Map<string, number>();
  /** Handler calls per task (failed ones included; never rolled back). */
  readonly calls = new Map<string, number>();
  /** Per task: how many of its first handler calls throw. */
  readonly failFirst = new Map<string, number>();
  readonly committed = new Map<string, number>();
  position = new Map<string, number>();
  crashAt: TaskConsumeFailpoint | "callback.after-report" | null = null;
  consumer!: TaskEventConsumer<InMemoryTaskTxHandle>;
  sender!: TaskCallbackSender<InMemoryTaskTxHandle>;
  readonly steps: TaskConsumeStep[] = [];
  crashes = 0;
  /** COMMIT failures injected into the consume log (each may fail one attempt). */
  commitFaultsArmed = 0;
  /** Crashes that fired at each failpoint. */
  readonly fired = { "consume.before-commit": 0, "consume.after-commit": 0, "callback.after-report": 0 };

  constructor(
    readonly owner: string,
    readonly world: TaskRoutingWorld,
  ) {
    this.restart();
  }

  get topics(): readonly string[] {
    return [taskTopic(this.world.routing, this.owner)];
  }

  /** A crash: new objects (breaker lost), the position back to the committed offsets. */
  restart(): void {
    const w = this.world;
    const failpoint = (name: TaskConsumeFailpoint | "callback.after-report") => {
      if (this.crashAt === name) {
        this.crashAt = null;
        this.fired[name] += 1;
        throw new SimulatedCrashMarker(name);
      }
    };
    this.position = new Map(this.committed);
    this.consumer = new TaskEventConsumer({
      owner: this.owner,
      routing: w.routing,
      registry: new TaskHandlerRegistry((HANDLERS[this.owner] ?? []).map((code) => this.#handler(code))),
      log: this.log,
      clock: w.clock,
      policy: HANDLER_POLICY,
      breaker: { initialMs: 500, maxMs: 2_000 },
      failpoint,
    });
    this.sender = new TaskCallbackSender({ log: this.log, port: w.callbackPort, clock: w.clock, failpoint }, { batchSize: 3, initialBackoffMs: 500, maxBackoffMs: 4_000 });
  }

  #handler(code: string): TaskEventHandler<InMemoryTaskTxHandle> {
    const apply = async (kind: "finish" | "cancel", event: TaskEventMessage, tx: InMemoryTaskTxHandle) => {
      if (event.handlerCode !== code) throw new Error(`routed to ${code} but the event is for ${event.handlerCode}`);
      const n = (this.calls.get(event.taskId) ?? 0) + 1;
      this.calls.set(event.taskId, n);
      if (n <= (this.failFirst.get(event.taskId) ?? 0)) throw new Error(`simulated handler failure ${n} for ${event.taskId}`);
      const key = `${kind}:${event.taskId}`;
      tx.stage(() => this.effects.set(key, (this.effects.get(key) ?? 0) + 1));
    };
    return {
      handlerCode: code,
      onTaskFinished: (event, ctx) => apply("finish", event, ctx.tx),
      onTaskCancelled: (event, ctx) => apply("cancel", event, ctx.tx),
    };
  }

  /** Handles the record at the position of the first topic that has one; true on progress. */
  async consumeOne(): Promise<boolean> {
    for (const topic of this.topics) {
      const records = this.world.broker.records(topic);
      const pos = this.position.get(topic) ?? 0;
      const r = records[pos];
      if (r === undefined) continue;
      const record: ConsumedTaskRecord = { topic, partition: 0, offset: String(pos), key: r.key, value: r.value, headers: r.headers };
      let step: TaskConsumeStep;
      try {
        step = await this.consumer.handle(record);
      } catch (e) {
        if (!(e instanceof SimulatedCrashMarker)) throw e;
        this.crash();
        return true;
      }
      if (step.did === "retry") continue;
      this.steps.push(step);
      this.position.set(topic, pos + 1);
      return true;
    }
    return false;
  }

  commitOffsets(): void {
    for (const [topic, pos] of this.position) this.committed.set(topic, pos);
  }

  crash(): void {
    this.crashes += 1;
    this.restart();
  }

  async sendCallbacks(): Promise<boolean> {
    try {
      const step = await this.sender.step();
      return step.sent.length + step.rejected.length > 0;
    } catch (e) {
      if (e instanceof SimulatedCrashMarker) {
        this.crash();
        return true;
      }
      if (e instanceof MsgxError && e.kind === "DEPENDENCY_UNAVAILABLE") return false;
      throw e;
    }
  }

  /** Every record of its topics consumed and committed. */
  caughtUp(): boolean {
    return this.topics.every((t) => (this.committed.get(t) ?? 0) >= this.world.broker.records(t).length);
  }
}

export class TaskRoutingWorld {
  readonly clock = new ManualClock();
  readonly pipeline = new InMemoryPipelineStore(this.clock);
  readonly taskStore = new InMemoryTaskStore(this.clock, this.pipeline);
  readonly outbox = new InMemoryOutboxStore(this.pipeline);
  readonly broker = new InMemoryBroker();
  /** The executing system; tasks are due for the dispatch job unless dispatched by hand. */
  readonly dispatcher = new InMemoryTaskDispatcher();
  readonly service: TaskService;
  readonly dispatchJob: DispatchJob;
  readonly owners: ReadonlyMap<string, OwnerWorld>;
  dispatchers: MsgDispatcher[] = [];
  relayCrashAt: DeliveryFailpoint | null = null;
  taskServiceDownUntil = 0;
  loseCallbackResponses = 0;
  relayCrashes = 0;
  relayCrashesAfterSend = 0;
  callbackFaults = 0;

  constructor(readonly routing: TaskRouting) {
    this.service = new TaskService({ store: this.taskStore, clock: this.clock, routing, dispatcher: this.dispatcher });
    this.dispatchJob = new DispatchJob({ store: this.taskStore, dispatcher: this.dispatcher, clock: this.clock }, { batchSize: 3 });
    this.owners = new Map(OWNERS.map((o) => [o, new OwnerWorld(o, this)]));
    this.restartRelay();
  }

  /** The HTTP callback, as the task service would answer it (refusals for good are not retriable). */
  readonly callbackPort: TaskCallbackPort = {
    report: async (callback) => {
      if (this.clock.now() < this.taskServiceDownUntil) {
        this.callbackFaults += 1;
        throw new MsgxError("DEPENDENCY_UNAVAILABLE", "task service is down (simulated)");
      }
      let outcome: string;
      try {
        outcome = (await this.service.callback(callback)).entry.outcome;
      } catch (e) {
        if (isTaskRequestError(e)) throw new MsgxError("PROTOCOL", e.message, { retriable: false });
        throw e;
      }
      if (outcome === "REJECTED") throw new MsgxError("PROTOCOL", `callback rejected for ${callback.taskId}`, { retriable: false });
      if (this.loseCallbackResponses > 0) {
        this.loseCallbackResponses -= 1;
        this.callbackFaults += 1;
        throw new MsgxError("DEPENDENCY_UNAVAILABLE", "callback response lost (simulated; it was recorded)");
      }
    },
  };

  restartRelay(): void {
    const owners = [...OWNERS];
    const topics = taskDeliveryTopics(this.routing, owners);
    this.dispatchers = taskTargets(this.routing, owners).map(
      (target) =>
        new MsgDispatcher(
          {
            outbox: this.outbox,
            delivery: this.broker,
            clock: this.clock,
            logger: silentLogger,
            failpoint: (name) => {
              if (this.relayCrashAt === name) {
                this.relayCrashAt = null;
                this.relayCrashesAfterSend += 1;
                throw new SimulatedCrashMarker(name);
              }
            },
          },
          { target, topics, batchSize: 3, breaker: { initialMs: 500, maxMs: 2_000 } },
        ),
    );
  }

  /** One step of every dispatcher; true when something was sent. */
  async relay(): Promise<boolean> {
    let progress = false;
    for (const d of this.dispatchers) {
      try {
        const step = await d.step();
        if (step.did === "sent") progress = true;
      } catch (e) {
        if (!(e instanceof SimulatedCrashMarker)) throw e;
        this.relayCrashes += 1;
        this.restartRelay();
        return true;
      }
    }
    return progress;
  }

  pendingEvents(): number {
    return this.pipeline.tables.events.filter((e) => e.status === DeliveryStatus.PENDING).length;
  }

  /** Takes the task database (tasks and outbox) down until `ms` from now. */
  taskDbDownFor(ms: number): void {
    this.pipeline.faults.setDown(true);
    this.#downUntil.set("task", this.clock.now() + ms);
  }

  /** Takes an owner's database down until `ms` from now. */
  ownerDbDownFor(owner: string, ms: number): void {
    this.owners.get(owner)!.log.faults.setDown(true);
    this.#downUntil.set(owner, this.clock.now() + ms);
  }

  /** Moves the clock; outages that are over end. */
  advance(ms: number): void {
    this.clock.advance(ms);
    for (const [who, until] of this.#downUntil) {
      if (this.clock.now() < until) continue;
      if (who === "task") this.pipeline.faults.setDown(false);
      else this.owners.get(who)!.log.faults.setDown(false);
      this.#downUntil.delete(who);
    }
  }

  readonly #downUntil = new Map<string, number>();

  /**
   * Ends every outage, then runs everything until nothing is left to do (bounded). One-shot
   * faults stay armed (crash points, unknown commit outcomes, lost callback responses): they
   * fire during the settling as they would in a real recovery.
   */
  async settle(maxRounds = 400): Promise<void> {
    this.pipeline.faults.clear();
    this.taskServiceDownUntil = 0;
    this.#downUntil.clear();
    for (const o of this.owners.values()) o.log.faults.clear();
    for (let round = 0; round < maxRounds; round++) {
      let progress = await this.relay();
      for (const o of this.owners.values()) {
        while (await o.consumeOne()) progress = true;
        o.commitOffsets();
        if (await o.sendCallbacks()) progress = true;
      }
      if (this.quiet()) return;
      if (!progress) this.advance(2_000);
    }
    throw new Error("the world did not settle");
  }

  quiet(): boolean {
    if (this.pendingEvents() > 0) return false;
    for (const o of this.owners.values()) {
      if (!o.caughtUp()) return false;
      if ([...o.log.rows.values()].some((r) => r.callbackStatus === "PENDING")) return false;
    }
    return true;
  }
}
