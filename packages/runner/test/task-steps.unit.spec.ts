/**
 * The task service as the runner hosts it (issue 21), over the in-memory fakes: the relay creates
 * a task topic before its first send and waits (without losing anything) while it cannot, sends
 * `KAFKA:task:<owner>` rows to the owner's topic with the owner header; the dispatch step sends
 * due tasks and counts refusals; the watchdog alerts on a task pending its callback too long, sends
 * its event again and wakes the relay; the overdue step publishes TASK_OVERDUE and counts it; the
 * retention job purges final tasks only.
 */
import { TaskService } from "@msgx/tasks";
import { type RouterStep } from "@msgx/core";
import { InMemoryBroker, InMemoryOutboxStore, InMemoryPipelineStore, ManualClock, RecordingLogger } from "@msgx/core/testing";
import { InMemoryTaskDispatcher, InMemoryTaskStore } from "@msgx/tasks/testing";
import { describe, expect, it } from "vitest";
import type { AppParts } from "../src/app/app-parts.js";
import { loadConfig } from "../src/config/load-config.js";
import { createMaintenanceJobs } from "../src/jobs/maintenance-schedule.js";
import { createTaskHost } from "../src/tasks/task-host.js";
import { taskSteps, taskTargetTopic } from "../src/tasks/task-steps.js";
import { FakeQueueTopics } from "./fake-queue-topics.js";

function world(tasks: Record<string, string> = {}, topics: FakeQueueTopics | undefined = new FakeQueueTopics()) {
  const clock = new ManualClock();
  const db = new InMemoryPipelineStore(clock);
  const logger = new RecordingLogger();
  const broker = new InMemoryBroker();
  const dispatcher = new InMemoryTaskDispatcher();
  const config = loadConfig({ env: {}, overrides: { "tasks.enabled": "true", ...Object.fromEntries(Object.entries(tasks).map(([k, v]) => [`tasks.${k}`, v])) } });
  const parts = {
    kind: "real",
    outbox: new InMemoryOutboxStore(db),
    tasks: new InMemoryTaskStore(clock, db),
    delivery: broker,
    ...(topics ? { queueTopics: topics } : {}),
  } as unknown as AppParts;
  const ctx = { parts, config, logger, clock };
  const host = createTaskHost(ctx, { dispatcher });
  const steps = new Map(taskSteps(ctx, host).map((s) => [s.name, s] as const));
  const run = (name: string) => (steps.get(name) as RouterStep).run(new AbortController().signal);
  return { clock, logger, broker, dispatcher, parts, host, run, topics, config, service: host.service as TaskService, steps };
}

const newTask = (taskId: string, ownerService = "LMS") => ({ taskId, ownerService, handlerCode: "LMS_CALL", bizType: "CALL", bizId: `b-${taskId}`, externalSystem: "ACS" });

/** Creates a task, dispatches it and reports it FINISHED: its TASK_FINISHED row is in the outbox. */
async function finished(w: ReturnType<typeof world>, taskId: string, ownerService = "LMS") {
  await w.service.create(newTask(taskId, ownerService));
  await w.run("task-dispatch");
  return w.service.feedback({ taskId, externalEventId: `acs-${taskId}`, status: "FINISHED" });
}

describe("hosted task steps", () => {
  it("maps targets to topics: KAFKA:task to the topic, KAFKA:task:<owner> to the pattern, whatever the mode", () => {
    const routing = { topic: "TASK_EVENT_TOPIC", topicPattern: "{owner}.tasks" };
    expect(taskTargetTopic("KAFKA:task", routing)).toEqual({ topic: "TASK_EVENT_TOPIC", owner: null });
    expect(taskTargetTopic("KAFKA:task:WMS", routing)).toEqual({ topic: "WMS.tasks", owner: "WMS" });
  });

  it("dispatches due tasks, creates the task topic before its first send and delivers with the owner header", async () => {
    const w = world();
    const answer = await finished(w, "T-1");
    expect(answer.task.externalTaskNo).toBe("EXT-1");
    expect(w.dispatcher.dispatches).toEqual(["T-1"]);
    expect((await w.run("task-relay")).after).toBe(1_000);
    expect(w.topics!.created).toEqual(["TASK_EVENT_TOPIC"]);
    const [record] = w.broker.records("TASK_EVENT_TOPIC");
    expect(record).toMatchObject({ key: "T-1", headers: { "msgx-owner": "LMS", "msgx-task-event": "TASK_FINISHED" } });
  });

  it("topic per owner: each owner's events go to its own topic", async () => {
    const w = world({ "routing.mode": "topic-per-owner", owners: "LMS,WMS" });
    await finished(w, "L-1", "LMS");
    await finished(w, "W-1", "WMS");
    await w.run("task-relay");
    expect(w.topics!.created.sort()).toEqual(["LMS_TASK_EVENT_TOPIC", "WMS_TASK_EVENT_TOPIC"]);
    expect(w.broker.records("LMS_TASK_EVENT_TOPIC").map((r) => r.key)).toEqual(["L-1"]);
    expect(w.broker.records("WMS_TASK_EVENT_TOPIC").map((r) => r.key)).toEqual(["W-1"]);
  });

  it("keeps events in the outbox while the topic cannot be created, warning once, and sends them once it can", async () => {
    const w = world();
    w.topics!.down = true;
    await finished(w, "T-2");
    await w.run("task-relay");
    await w.run("task-relay");
    expect(w.broker.records("TASK_EVENT_TOPIC")).toHaveLength(0);
    expect(w.logger.at("warn").filter((m) => m.includes("cannot create the task topic"))).toHaveLength(1);
    w.topics!.down = false;
    await w.run("task-relay");
    expect(w.broker.records("TASK_EVENT_TOPIC").map((r) => r.key)).toEqual(["T-2"]);
  });

  it("counts a refused dispatch as a FAILED task; no dispatch step without a dispatcher", async () => {
    const w = world();
    w.dispatcher.script("refuse", "unknown task type");
    await w.service.create(newTask("F-1"));
    await w.run("task-dispatch");
    expect((await w.service.get("F-1"))?.status).toBe("FAILED");
    expect(await w.host.metrics.render()).toMatch(/^msgx_task_failed_total 1$/m);

    const ctx = { parts: w.parts, config: w.config, logger: w.logger, clock: w.clock };
    expect(taskSteps(ctx, createTaskHost(ctx)).map((s) => s.name)).toEqual(["task-relay", "task-watchdog", "task-overdue"]);
  });

  it("an unreachable executing system: nothing spent, the dispatch step waits longer (doubling to 10 s), back to its period once it answers", async () => {
    const w = world();
    await w.service.create(newTask("O-1"));
    w.dispatcher.down = true;
    const waits: number[] = [];
    for (let i = 0; i < 6; i++) waits.push((await w.run("task-dispatch")).after);
    expect(waits).toEqual([1_000, 2_000, 4_000, 8_000, 10_000, 10_000]);
    expect((await w.service.get("O-1"))?.dispatchAttempts).toBe(0);
    w.dispatcher.down = false;
    expect((await w.run("task-dispatch")).after).toBe(1_000);
    expect((await w.service.get("O-1"))?.status).toBe("DISPATCHED");
  });

  it("the watchdog alerts on a task pending its callback too long, sends its event again and wakes the relay", async () => {
    const w = world({ "watchdog.pendingCallbackAlertMs": "60000", "watchdog.pendingCallbackRetryMs": "60000" });
    await finished(w, "P-1");
    await w.run("task-relay");
    expect(await w.run("task-watchdog")).toMatchObject({ wake: [] });
    w.clock.advance(60_000);
    expect(await w.run("task-watchdog")).toMatchObject({ after: 1_000, wake: ["task-relay"] });
    expect(await w.host.metrics.render()).toMatch(/^msgx_task_callbacks_pending_alerts_total 1$/m);
    await w.run("task-relay");
    const records = w.broker.records("TASK_EVENT_TOPIC");
    expect(records).toHaveLength(2);
    expect(records[1]).toMatchObject({ key: "P-1", headers: { "msgx-redeliver": "watchdog" } });
    // Not again before the retry period.
    expect(await w.run("task-watchdog")).toMatchObject({ wake: [] });
  });

  it("the overdue step publishes TASK_OVERDUE for a task past its heartbeat (tasks.overdue), counts it by reason and wakes the relay", async () => {
    const w = world({ "overdue.byHandlerCode": JSON.stringify({ LMS_CALL: { heartbeatMs: 30_000 } }) });
    await w.service.create(newTask("O-1"));
    await w.run("task-dispatch");
    expect(await w.run("task-overdue")).toMatchObject({ wake: [] });
    w.clock.advance(30_000);
    expect(await w.run("task-overdue")).toMatchObject({ after: 1_000, wake: ["task-relay"] });
    expect(await w.host.metrics.render()).toMatch(/^msgx_task_overdue_total\{reason="HEARTBEAT"\} 1$/m);
    expect(await w.host.metrics.render()).toMatch(/^msgx_task_overdue_total\{reason="DEADLINE"\} 0$/m);
    expect(await w.host.metrics.render()).toMatch(/^msgx_tasks_overdue\{reason="HEARTBEAT"\} 1$/m);
    await w.run("task-relay");
    expect(w.broker.records("TASK_EVENT_TOPIC").map((r) => [r.key, r.headers["msgx-task-event"]])).toEqual([["O-1", "TASK_OVERDUE"]]);
    expect(w.logger.lines.filter((l) => l.level === "warn" && l.msg.startsWith("task overdue")).map((l) => l.fields?.["reason"])).toEqual(["HEARTBEAT"]);
    // Once per silence.
    expect(await w.run("task-overdue")).toMatchObject({ wake: [] });
  });

  it("msgx_tasks reads the store's counts per status, at most every 15 s", async () => {
    const w = world();
    await w.service.create({ ...newTask("G-1"), dispatch: false });
    expect(await w.host.metrics.render()).toMatch(/^msgx_tasks\{status="CREATED"\} 1$/m);
    await w.service.create({ ...newTask("G-2"), dispatch: false });
    expect(await w.host.metrics.render()).toMatch(/^msgx_tasks\{status="CREATED"\} 1$/m);
    w.clock.advance(15_000);
    const text = await w.host.metrics.render();
    expect(text).toMatch(/^msgx_tasks\{status="CREATED"\} 2$/m);
    expect(text).toMatch(/^msgx_tasks\{status="FAILED"\} 0$/m);
  });

  it("purges final tasks past the retention in the maintenance job, and no live one", async () => {
    const w = world({ "retention.finishedMs": "60000" });
    const done = await finished(w, "R-done");
    await w.service.callback({ taskId: "R-done", eventId: done.entry.eventId!, result: "SUCCESS" });
    await finished(w, "R-pending");
    await w.service.create({ ...newTask("R-live"), dispatch: false });
    const maintenance = createMaintenanceJobs(
      { parts: { ...w.parts, maintenance: {}, store: {}, mailbox: {} } as unknown as AppParts, config: { ...w.config, shadow: true }, logger: w.logger, clock: w.clock },
      { tasks: w.parts.tasks, store: {} as never },
    );
    const job = maintenance.steps.find((s) => s.name === "task-retention")!;
    expect((await job.run(new AbortController().signal)).after).toBe(2 * 60_000);
    w.clock.advance(2 * 60_000);
    expect((await job.run(new AbortController().signal)).after).toBe(10 * 60_000);
    expect(await w.service.get("R-done")).toBeUndefined();
    expect(await w.service.get("R-pending")).toBeDefined();
    expect(await w.service.get("R-live")).toBeDefined();
  });
});
