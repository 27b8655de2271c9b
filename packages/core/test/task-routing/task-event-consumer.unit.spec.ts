import { beforeEach, describe, expect, it } from "vitest";
import { EventHeader } from "../../src/outbox/event-headers.js";
import { SimulatedCrashMarker } from "../../src/runtime/simulated-crash.js";
import type { ConsumedTaskRecord } from "../../src/task-routing/task-consume-decision.js";
import { TaskHandlerRegistry, type TaskEventHandler } from "../../src/task-routing/task-handler-registry.js";
import { InMemoryTaskConsumeLogStore, type InMemoryTaskTxHandle } from "../../src/task-routing/in-memory-task-consume-log-store.js";
import { taskEventMessage, type TaskEventMessage } from "../../src/task-routing/task-event.js";
import { TaskEventConsumer, type TaskConsumeFailpoint } from "../../src/task-routing/task-event-consumer.js";
import { TaskEventHeader } from "../../src/task-routing/task-headers.js";
import { newTaskRecord } from "../../src/task-routing/task-record.js";
import { ManualClock } from "../../src/runtime/manual-clock.js";

const POLICY = { maxAttempts: 3, initialBackoffMs: 1_000, backoffMultiplier: 2, maxBackoffMs: 60_000, headDeadlineMs: 600_000 };

const event = (taskId: string, handlerCode = "LMS_STOCK_AREA_CALL_TUBE", eventType: TaskEventMessage["eventType"] = "TASK_FINISHED"): TaskEventMessage =>
  taskEventMessage(
    { ...newTaskRecord({ taskId, ownerService: "LMS", handlerCode, bizType: "B", bizId: `B-${taskId}`, externalSystem: "ACS" }, 0), version: 2 },
    eventType,
    "ACS-E1",
    0,
  );
const record = (e: TaskEventMessage | string, owner = "LMS", deliveryId = "7"): ConsumedTaskRecord => ({
  topic: "TASK_EVENT_TOPIC",
  partition: 0,
  offset: "3",
  key: typeof e === "string" ? null : e.taskId,
  value: typeof e === "string" ? e : JSON.stringify(e),
  headers: { [TaskEventHeader.OWNER]: owner, [EventHeader.EVENT_ID]: deliveryId },
});

describe("TaskEventConsumer", () => {
  let clock: ManualClock;
  let log: InMemoryTaskConsumeLogStore;
  let effects: string[];
  let failures: number;
  let crashAt: TaskConsumeFailpoint | null;
  let nudges: number;
  let consumer: TaskEventConsumer<InMemoryTaskTxHandle>;

  const handler = (code: string): TaskEventHandler<InMemoryTaskTxHandle> => ({
    handlerCode: code,
    onTaskFinished: async (e, ctx) => {
      if (failures > 0) {
        failures -= 1;
        throw new Error(`stock point locked (attempt ${ctx.attempt})`);
      }
      ctx.tx.stage(() => effects.push(`${code}:finished:${e.taskId}`));
    },
    onTaskCancelled: async (e, ctx) => ctx.tx.stage(() => effects.push(`${code}:cancelled:${e.taskId}`)),
  });

  beforeEach(() => {
    clock = new ManualClock();
    log = new InMemoryTaskConsumeLogStore();
    effects = [];
    failures = 0;
    crashAt = null;
    nudges = 0;
    consumer = new TaskEventConsumer({
      owner: "LMS",
      registry: new TaskHandlerRegistry([handler("LMS_STOCK_AREA_CALL_TUBE"), handler("LMS_SLITTER_DOWN_AGV")]),
      log,
      clock,
      policy: POLICY,
      breaker: { initialMs: 500, maxMs: 4_000 },
      onCallbackDue: () => void (nudges += 1),
      failpoint: (name) => {
        if (crashAt === name) {
          crashAt = null;
          throw new SimulatedCrashMarker(name);
        }
      },
    });
  });

  it("routes by handler code and commits the effect with a SUCCEEDED row; a redelivery is acknowledged unrun", async () => {
    expect(await consumer.handle(record(event("T1")))).toEqual({ did: "succeeded", eventId: "T1#2", attempt: 1 });
    expect(await consumer.handle(record(event("T2", "LMS_SLITTER_DOWN_AGV", "TASK_CANCELLED")))).toMatchObject({ did: "succeeded" });
    expect(await consumer.handle(record(event("T1"), "LMS", "8"))).toEqual({ did: "duplicate", eventId: "T1#2" });
    expect(effects).toEqual(["LMS_STOCK_AREA_CALL_TUBE:finished:T1", "LMS_SLITTER_DOWN_AGV:cancelled:T2"]);
    const row = await log.get("T1#2");
    expect(row).toMatchObject({ taskId: "T1", handlerCode: "LMS_STOCK_AREA_CALL_TUBE", eventType: "TASK_FINISHED", status: "SUCCEEDED", errorMsg: null, deliveryEventId: "7", callbackStatus: "PENDING" });
    expect(nudges).toBe(2);
  });

  it("skips another owner's records without a log row", async () => {
    expect(await consumer.handle(record(event("T1"), "WMS"))).toEqual({ did: "skipped", reason: "owner WMS" });
    expect(await log.list({})).toEqual([]);
  });

  it("an unknown handler code is dead-lettered with the reason and reported, never dropped", async () => {
    const step = await consumer.handle(record(event("T3", "LMS_NO_SUCH")));
    expect(step).toMatchObject({ did: "dead", eventId: "T3#2" });
    const row = (await log.get("T3#2"))!;
    expect([row.status, row.callbackStatus, row.handlerCode]).toEqual(["DEAD", "PENDING", "LMS_NO_SUCH"]);
    expect(row.errorMsg).toBe('unknown handler code "LMS_NO_SUCH": no task handler is registered for it (registered: LMS_STOCK_AREA_CALL_TUBE, LMS_SLITTER_DOWN_AGV)');
    expect(row.payload).toEqual(event("T3", "LMS_NO_SUCH"));
    expect(await consumer.handle(record(event("T3", "LMS_NO_SUCH")))).toEqual({ did: "duplicate", eventId: "T3#2" });
  });

  it("an unreadable record of this owner is dead-lettered without a callback", async () => {
    expect(await consumer.handle(record("{broken"))).toMatchObject({ did: "dead", eventId: "unreadable:TASK_EVENT_TOPIC:event-7" });
    const row = (await log.get("unreadable:TASK_EVENT_TOPIC:event-7"))!;
    expect([row.status, row.callbackStatus, row.payload, row.taskId]).toEqual(["DEAD", null, "{broken", ""]);
  });

  it("handler failures roll back, back off (1 s, 2 s) and end DEAD with the last error once the budget is used", async () => {
    failures = 10;
    expect(await consumer.handle(record(event("T4")))).toMatchObject({ did: "retry", at: clock.now() + 1_000, outage: false });
    expect(await log.get("T4#2")).toMatchObject({ status: "FAILED", attempts: 1, errorMsg: "Error: stock point locked (attempt 1)" });
    expect(await consumer.handle(record(event("T4")))).toMatchObject({ did: "retry", at: clock.now() + 1_000, reason: "Error: stock point locked (attempt 1)" });
    clock.advance(1_000);
    expect(await consumer.handle(record(event("T4")))).toMatchObject({ did: "retry", at: clock.now() + 2_000 });
    clock.advance(2_000);
    const dead = await consumer.handle(record(event("T4")));
    expect(dead).toEqual({ did: "dead", eventId: "T4#2", reason: "attempts exhausted (3); last: Error: stock point locked (attempt 3)" });
    expect(await log.get("T4#2")).toMatchObject({ status: "DEAD", attempts: 3, callbackStatus: "PENDING" });
    expect(effects).toEqual([]);
  });

  it("a failure then a success applies the effect once and keeps the failure count", async () => {
    failures = 1;
    await consumer.handle(record(event("T5")));
    clock.advance(1_000);
    expect(await consumer.handle(record(event("T5")))).toEqual({ did: "succeeded", eventId: "T5#2", attempt: 2 });
    expect(await log.get("T5#2")).toMatchObject({ status: "SUCCEEDED", attempts: 1, errorMsg: null });
    expect(effects).toEqual(["LMS_STOCK_AREA_CALL_TUBE:finished:T5"]);
  });

  it("an outage of the consume log spends no attempt: the consumer pauses behind its breaker", async () => {
    log.faults.setDown(true);
    const first = await consumer.handle(record(event("T6")));
    expect(first).toMatchObject({ did: "retry", outage: true, at: clock.now() + 500 });
    expect(await consumer.handle(record(event("T6")))).toMatchObject({ did: "retry", outage: true, reason: "paused: dependency unavailable" });
    clock.advance(500);
    expect(await consumer.handle(record(event("T6")))).toMatchObject({ did: "retry", outage: true, at: clock.now() + 1_000 });
    for (let i = 0; i < 20; i++) {
      clock.advance(4_000);
      await consumer.handle(record(event("T6")));
    }
    log.faults.setDown(false);
    clock.advance(4_000);
    expect(await consumer.handle(record(event("T6")))).toMatchObject({ did: "succeeded", attempt: 1 });
    expect(consumer.breaker.openedAt).toBeNull();
  });

  it("a crash inside the handler transaction leaves nothing; after COMMIT the redelivery is a duplicate", async () => {
    crashAt = "consume.before-commit";
    await expect(consumer.handle(record(event("T7")))).rejects.toBeInstanceOf(SimulatedCrashMarker);
    expect([effects, await log.get("T7#2")]).toEqual([[], undefined]);
    crashAt = "consume.after-commit";
    await expect(consumer.handle(record(event("T7")))).rejects.toBeInstanceOf(SimulatedCrashMarker);
    expect(await consumer.handle(record(event("T7")))).toEqual({ did: "duplicate", eventId: "T7#2" });
    expect(effects).toEqual(["LMS_STOCK_AREA_CALL_TUBE:finished:T7"]);
  });

  it("an unknown COMMIT outcome pauses; the retry finds the committed row and does not run again", async () => {
    log.commitUnknownNext = true;
    expect(await consumer.handle(record(event("T8")))).toMatchObject({ did: "retry", outage: true });
    clock.advance(500);
    expect(await consumer.handle(record(event("T8")))).toEqual({ did: "duplicate", eventId: "T8#2" });
    expect(effects).toEqual(["LMS_STOCK_AREA_CALL_TUBE:finished:T8"]);
  });
});
