/**
 * The owner's callback over the result topic as the runner hosts it (issue 36 item 8), over the
 * in-memory fakes and a fake consumer: the `task-callbacks` step creates the topic and starts the
 * consumer (again after a failed start); each record is applied through `TaskService.callback`, or
 * logged, counted and skipped when it is malformed, for an unknown task or refused; a transient
 * failure (the store down, FENCED) throws a retriable error, so the same record is applied again.
 */
import { isMsgxError, type RouterStep } from "@msgx/core";
import { InMemoryBroker, InMemoryOutboxStore, InMemoryPipelineStore, ManualClock, RecordingLogger } from "@msgx/core/testing";
import { InMemoryTaskDispatcher, InMemoryTaskStore } from "@msgx/tasks/testing";
import { describe, expect, it } from "vitest";
import type { AppParts } from "../src/app/app-parts.js";
import { loadConfig } from "../src/config/load-config.js";
import type { StartCallbackConsumer } from "../src/tasks/result-topic-callbacks.js";
import { createTaskHost } from "../src/tasks/task-host.js";
import { taskSteps } from "../src/tasks/task-steps.js";
import { FakeQueueTopics } from "./fake-queue-topics.js";

function world() {
  const clock = new ManualClock();
  const db = new InMemoryPipelineStore(clock);
  const logger = new RecordingLogger();
  const broker = new InMemoryBroker();
  const config = loadConfig({ env: {}, overrides: { "tasks.enabled": "true", "tasks.callback.resultTopic": "RESULTS", "kafka.brokers": "127.0.0.1:1" } });
  const tasks = new InMemoryTaskStore(clock, db);
  const topics = new FakeQueueTopics();
  const parts = { kind: "real", outbox: new InMemoryOutboxStore(db), tasks, delivery: broker, queueTopics: topics } as unknown as AppParts;
  const consumer = { starts: 0, failStarts: 0, stopped: 0, onRecord: undefined as ((value: string | null, key: string | null) => Promise<void>) | undefined, group: "" };
  const start: StartCallbackConsumer = async (topic, groupId, onRecord) => {
    consumer.starts += 1;
    if (consumer.failStarts > 0 && consumer.failStarts-- > 0) throw new Error("broker unreachable");
    consumer.onRecord = onRecord;
    consumer.group = `${groupId}@${topic}`;
    return { stop: async () => void (consumer.stopped += 1) };
  };
  const ctx = { parts, config, logger, clock };
  const host = createTaskHost(ctx, { dispatcher: new InMemoryTaskDispatcher(), callbackConsumer: start });
  const steps = new Map(taskSteps(ctx, host).map((s) => [s.name, s] as const));
  const run = (name: string) => (steps.get(name) as RouterStep).run(new AbortController().signal);
  const record = (value: unknown) => consumer.onRecord!(typeof value === "string" || value === null ? value : JSON.stringify(value), "k");
  return { clock, logger, broker, host, run, tasks, topics, consumer, record, steps };
}

/** Creates a task, dispatches it, reports it FINISHED and relays its event: the event id its owner calls back with. */
async function pendingCallback(w: ReturnType<typeof world>, taskId: string): Promise<string> {
  await w.host.service.create({ taskId, ownerService: "LMS", handlerCode: "LMS_CALL", bizType: "CALL", bizId: `b-${taskId}`, externalSystem: "ACS" });
  await w.run("task-dispatch");
  await w.host.service.feedback({ taskId, externalEventId: `acs-${taskId}`, status: "FINISHED" });
  await w.run("task-relay");
  const event = w.broker.records("TASK_EVENT_TOPIC").find((r) => r.key === taskId)!;
  return (JSON.parse(String(event.value)) as { eventId: string }).eventId;
}

const message = (taskId: string, eventId: string) => ({ schemaVersion: 1, taskId, eventId, result: "SUCCESS", message: "done", ownerService: "LMS" });
const counted = async (w: ReturnType<typeof world>, outcome: string) => Number(new RegExp(`^msgx_task_callback_records_total\\{outcome="${outcome}"\\} (\\d+)$`, "m").exec(await w.host.metrics.render())?.[1]);

describe("the owner's callbacks over the result topic, hosted", () => {
  it("the step creates the topic and starts the consumer once, again after a failed start; stop stops it", async () => {
    const w = world();
    w.consumer.failStarts = 1;
    await expect(w.run("task-callbacks")).rejects.toThrow(/broker unreachable/);
    expect(w.host.resultTopic!.running).toBe(false);
    expect((await w.run("task-callbacks")).after).toBe(5_000);
    await w.run("task-callbacks");
    expect(w.consumer.starts).toBe(2);
    expect(w.consumer.group).toBe("msgx-task-callbacks@RESULTS");
    expect(w.topics.created).toEqual(["RESULTS"]);
    await w.host.resultTopic!.stop();
    expect(w.consumer.stopped).toBe(1);
    await w.run("task-callbacks");
    expect(w.consumer.starts).toBe(2);
  });

  it("applies a callback as the HTTP route does: the task ends FINISHED; a repeat is harmless", async () => {
    const w = world();
    await w.run("task-callbacks");
    const eventId = await pendingCallback(w, "A-1");
    await w.record(message("A-1", eventId));
    expect((await w.host.service.get("A-1"))?.status).toBe("FINISHED");
    await w.record(message("A-1", eventId));
    expect(await counted(w, "applied")).toBe(2);
  });

  it("skips a malformed record, an unknown task and a refused callback: logged, counted, never thrown (the offset advances)", async () => {
    const w = world();
    await w.run("task-callbacks");
    const eventId = await pendingCallback(w, "R-1");
    await w.record("not json {");
    await w.record(null);
    await w.record({ schemaVersion: 1, taskId: "R-1", eventId, result: "MAYBE" });
    await w.record({ ...message("R-1", eventId), taskId: "" });
    await w.record(message("NOPE-1", "NOPE-1#1"));
    await w.record(message("R-1", "R-1#999"));
    expect(await counted(w, "malformed")).toBe(4);
    expect(await counted(w, "unknown-task")).toBe(1);
    expect(await counted(w, "rejected")).toBe(1);
    expect(await counted(w, "applied")).toBe(0);
    expect(w.logger.at("error").filter((m) => m.includes("malformed"))).toHaveLength(4);
    expect(w.logger.lines.filter((l) => l.msg.includes("refused: skipped")).map((l) => l.fields?.["status"])).toEqual([404, 409]);
    expect((await w.host.service.get("R-1"))?.status).toBe("FINISHED_PENDING_CALLBACK");
    // The right callback after all of them still applies.
    await w.record(message("R-1", eventId));
    expect((await w.host.service.get("R-1"))?.status).toBe("FINISHED");
  });

  it("a transient failure (store down, FENCED) throws retriable, applies nothing, and the same record applies on the retry", async () => {
    const w = world();
    await w.run("task-callbacks");
    const eventId = await pendingCallback(w, "X-1");
    for (const kind of ["DEPENDENCY_UNAVAILABLE", "FENCED"] as const) {
      w.tasks.faults.failNext("task.transaction", 1, kind);
      const thrown = await w.record(message("X-1", eventId)).then(() => undefined, (e: unknown) => e);
      expect(isMsgxError(thrown) && thrown.retriable && thrown.kind === kind, String(thrown)).toBe(true);
      expect((await w.host.service.get("X-1"))?.status).toBe("FINISHED_PENDING_CALLBACK");
    }
    await w.record(message("X-1", eventId));
    expect((await w.host.service.get("X-1"))?.status).toBe("FINISHED");
    expect(await counted(w, "applied")).toBe(1);
  });
});
