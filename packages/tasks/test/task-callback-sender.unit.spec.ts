import { describe, expect, it } from "vitest";
import { MsgxError } from "@msgx/core";
import { TASK_CALLBACK_EVENT_ID_HEADER, parseTaskCallbackMessage, resultTopicCallbackPort } from "../src/task-callback-port.js";
import { TaskCallbackSender } from "../src/task-callback-sender.js";
import type { TaskCallback } from "../src/task-callback.js";
import { sampleTaskConsumeWrite } from "../src/task-consume-log-store.contract.js";
import { InMemoryTaskConsumeLogStore } from "../src/in-memory-task-consume-log-store.js";
import { InMemoryBroker } from "@msgx/core/fakes";
import { ManualClock } from "@msgx/core/fakes";

async function setup(fail: (cb: TaskCallback) => Error | undefined = () => undefined) {
  const clock = new ManualClock();
  const log = new InMemoryTaskConsumeLogStore();
  const reported: TaskCallback[] = [];
  const sender = new TaskCallbackSender(
    {
      log,
      clock,
      port: {
        report: async (cb) => {
          const e = fail(cb);
          if (e !== undefined) throw e;
          reported.push(cb);
        },
      },
    },
    { batchSize: 10, initialBackoffMs: 1_000, maxBackoffMs: 8_000 },
  );
  const at = clock.now();
  await log.transaction((tx) => tx.succeed(sampleTaskConsumeWrite("T1#2", { at })));
  await log.recordFailure(sampleTaskConsumeWrite("T2#2", { status: "DEAD", errorMsg: "unknown handler code X", at }));
  return { clock, log, sender, reported };
}

describe("TaskCallbackSender", () => {
  it("reports SUCCESS for handled events and FAILURE with the reason for dead letters, then marks them SENT", async () => {
    const { log, sender, reported } = await setup();
    const step = await sender.step();
    expect(step).toEqual({ sent: ["T1#2", "T2#2"], deferred: [], rejected: [], next: null });
    expect(reported).toEqual([
      { taskId: "T1", eventId: "T1#2", result: "SUCCESS", message: null },
      { taskId: "T2", eventId: "T2#2", result: "FAILURE", message: "unknown handler code X" },
    ]);
    expect((await log.list({ callbackStatuses: ["SENT"] })).length).toBe(2);
    expect(await sender.step()).toEqual({ sent: [], deferred: [], rejected: [], next: null });
  });

  it("an unreachable task service defers with doubling backoff, without limit, and stops the step early", async () => {
    let down = true;
    const { clock, log, sender, reported } = await setup(() => (down ? new MsgxError("DEPENDENCY_UNAVAILABLE", "connect ECONNREFUSED") : undefined));
    const t0 = clock.now();
    expect(await sender.step()).toEqual({ sent: [], deferred: ["T1#2"], rejected: [], next: t0 + 1_000 });
    for (const wait of [1_000, 2_000, 4_000, 8_000, 8_000, 8_000]) {
      clock.advance(wait);
      await sender.step();
    }
    // One try per step while the service is down (the step stops at the first outage), oldest due first.
    const rows = await log.list({ callbackStatuses: ["PENDING"] });
    expect(rows.map((r) => r.callbackError)).toEqual(["connect ECONNREFUSED", "connect ECONNREFUSED"]);
    expect(rows.reduce((n, r) => n + r.callbackAttempts, 0)).toBe(7);
    down = false;
    clock.advance(8_000);
    expect([...(await sender.step()).sent].sort()).toEqual(["T1#2", "T2#2"]);
    expect(reported).toHaveLength(2);
  });

  it("a refusal for good ends the callback REJECTED with the reason", async () => {
    const { log, sender } = await setup((cb) => (cb.taskId === "T2" ? new MsgxError("PROTOCOL", "409: event id does not match", { retriable: false }) : undefined));
    expect(await sender.step()).toMatchObject({ sent: ["T1#2"], rejected: ["T2#2"] });
    expect(await log.get("T2#2")).toMatchObject({ callbackStatus: "REJECTED", callbackError: "409: event id does not match" });
  });

  it("a report reopened after SENT is sent once more (same result); progress rows are never reported", async () => {
    const { clock, log, sender, reported } = await setup();
    await log.transaction((tx) => tx.succeed(sampleTaskConsumeWrite("T3#2", { eventType: "TASK_EXECUTING", callback: false, at: clock.now() })));
    expect((await sender.step()).sent).toEqual(["T1#2", "T2#2"]);
    clock.advance(600_000);
    expect(await log.reopenCallback("T2#2", clock.now())).toBe(true);
    expect(await log.reopenCallback("T3#2", clock.now())).toBe(false);
    expect(await sender.step()).toEqual({ sent: ["T2#2"], deferred: [], rejected: [], next: null });
    expect(reported.map((r) => [r.eventId, r.result])).toEqual([
      ["T1#2", "SUCCESS"],
      ["T2#2", "FAILURE"],
      ["T2#2", "FAILURE"],
    ]);
    expect(reported.some((r) => r.eventId === "T3#2")).toBe(false);
    expect(await log.get("T2#2")).toMatchObject({ callbackStatus: "SENT", callbackAttempts: 0, updatedAt: clock.now() });
  });
});

describe("result topic callback port", () => {
  it("publishes one record per callback, key = taskId, and the task side parses it back", async () => {
    const broker = new InMemoryBroker();
    const port = resultTopicCallbackPort(broker, "TASK_CALLBACK_RESULT_TOPIC", "LMS");
    await port.report({ taskId: "T1", eventId: "T1#2", result: "SUCCESS", message: "ok" });
    const [r] = broker.records("TASK_CALLBACK_RESULT_TOPIC");
    expect([r!.key, r!.headers[TASK_CALLBACK_EVENT_ID_HEADER]]).toEqual(["T1", "T1#2"]);
    expect(parseTaskCallbackMessage(r!.value)).toEqual({ taskId: "T1", eventId: "T1#2", result: "SUCCESS", message: "ok" });
    expect(() => parseTaskCallbackMessage('{"schemaVersion":1,"taskId":"T1","eventId":"x","result":"MAYBE"}')).toThrow(/not a task callback/);
    expect(() => parseTaskCallbackMessage('{"schemaVersion":1,"taskId":"T1","eventId":"T1#2","result":"FAILURE","message":"bad\\u0000"}')).toThrow(/NUL character/);
    expect(() => parseTaskCallbackMessage(null)).toThrow(MsgxError);
  });
});
