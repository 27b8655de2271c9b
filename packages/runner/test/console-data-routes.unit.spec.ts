/**
 * The console's data routes (issue 23, docs/operations.md "Console data") through fastify's
 * inject on the runner's own server over the in-memory fakes: the runners with stale ones marked,
 * the per-minute history, the flight search, the task-event and reliable-queue views and replays
 * delegating to their services, 404 "not enabled" when a service is off, every bad parameter a
 * 400 — never a 500, no request failure logged.
 */
import { DispatchJob, TaskOverdueJob, TaskService } from "@msgx/tasks";
import { newProcRecord } from "@msgx/core/testing";
import { RunnerRole, StatusSamples, type FlightState, type Logger } from "@msgx/core";
import { ReliableMessageService } from "@msgx/reliable";
import { InMemoryFlightReader, InMemoryPipelineStore, InMemoryRunnerPresence, InMemoryThroughputReader, ManualClock, RecordingLogger } from "@msgx/core/testing";
import { InMemoryReliableMessageStore } from "@msgx/reliable/testing";
import { InMemoryTaskDispatcher, InMemoryTaskStore } from "@msgx/tasks/testing";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createOpsReads } from "../src/app/ops-reads.js";
import { PRESENCE_STALE_MS } from "../src/app/presence-heartbeat.js";
import type { HttpApp } from "../src/http/http-app.js";
import type { HttpContext } from "../src/http/http-context.js";
import { createHttpServer } from "../src/http/http-server.js";
import { directReliableAdmin } from "../src/reliable/reliable-admin.js";
import { directReliableApi } from "../src/reliable/reliable-api.js";
import { createReliableMetrics } from "../src/reliable/reliable-metrics.js";
import { directTaskApi } from "../src/tasks/task-api.js";
import { createTaskMetrics } from "../src/tasks/task-metrics.js";
import { injectJson, pipelineLessContext } from "./route-spec.js";

const ADMIN_TOKEN = "admin-token-for-operators";
const ADMIN = { authorization: `Bearer ${ADMIN_TOKEN}` };
// 08:00:30 on the day: the current minute is 08:00.
const NOW = Date.UTC(2026, 2, 5, 8, 0, 30);
const MINUTE = 60_000;

const flight = (flid: string, flno: string, sodt: string): FlightState => ({
  flid,
  ffid: null,
  operationDay: "20260305",
  stateVersion: 2,
  lastMsgId: 9,
  lastSrcDttm: "20260305070000",
  deleted: false,
  scalars: { ALCD: flno.slice(0, 2), FLNO: flno, MVIN: "D", SODT: sodt },
  collections: {},
});

const apps: HttpApp[] = [];
afterAll(async () => {
  for (const app of apps) await app.close();
});

function world(services: { readonly tasks: boolean; readonly reliable: boolean }) {
  const clock = new ManualClock(NOW);
  const db = new InMemoryPipelineStore(clock);
  const logger = new RecordingLogger();
  const presence = new InMemoryRunnerPresence(clock);
  const samples = new StatusSamples();
  const ops = createOpsReads({ presence, throughput: new InMemoryThroughputReader(db), flights: new InMemoryFlightReader(db) }, samples, clock);

  const taskStore = new InMemoryTaskStore(clock, db);
  const taskService = new TaskService({ store: taskStore, clock, logger, dispatcher: new InMemoryTaskDispatcher(), routing: { mode: "owner-header", topic: "TASK_EVENT_TOPIC", owners: ["LMS"] }, ids: () => "replay-1", overduePolicy: { byHandlerCode: { SLOW: { heartbeatMs: 1_000 } } } });
  const dispatch = new DispatchJob({ store: taskStore, dispatcher: new InMemoryTaskDispatcher(), clock, logger });
  const rmService = new ReliableMessageService({ store: new InMemoryReliableMessageStore(clock, db), clock, logger, options: { maxRejects: 1, rejectWaitsMs: [1_000] } });
  let relayWakes = 0;
  const rm = directReliableApi({ service: rmService, metrics: createReliableMetrics(clock, () => rmService.countByPhase()), createTopics: true, onSend: () => void (relayWakes += 1) });
  const tasks = directTaskApi({ service: taskService, store: taskStore, metrics: createTaskMetrics(clock) });

  const ctx = {
    ...pipelineLessContext(logger as Logger, ADMIN_TOKEN),
    metrics: async () => ({ contentType: "text/plain", body: "" }),
    reliable: directReliableAdmin(rmService, { store: db, clock }),
    ops,
    ...(services.tasks ? { tasks } : {}),
    ...(services.reliable ? { rm } : {}),
  } satisfies HttpContext;
  const app = createHttpServer(ctx);
  apps.push(app);
  return { app, db, clock, logger, presence, samples, taskService, taskStore, dispatch, rm, rmService, relayWakes: () => relayWakes };
}

type World = ReturnType<typeof world>;

let current: World | undefined;
afterEach(() => {
  // No answer of these routes is our fault: no request failure logged.
  expect(current?.logger.lines.filter((l) => l.msg === "http request failed") ?? []).toEqual([]);
});
const use = (w: World) => (current = w);

const get = (w: World, url: string, headers: Record<string, string> = ADMIN) => injectJson(w.app, "GET", url, undefined, headers);
const post = (w: World, url: string, body?: unknown) => injectJson(w.app, "POST", url, body, ADMIN);

describe("GET /admin/runners", () => {
  it("lists the leader first and the standbys, with the leader's epoch, stale ones marked; behind the admin token", async () => {
    const w = use(world({ tasks: false, reliable: false }));
    await w.presence.beat({ runnerId: "ops-2/77/b", host: "ops-2", pid: 77, role: RunnerRole.STANDBY, epoch: null, startedAt: NOW - 9_000 });
    await w.presence.beat({ runnerId: "ops-1/42/a", host: "ops-1", pid: 42, role: RunnerRole.LEADER, epoch: 5, startedAt: NOW - 60_000 });
    await w.presence.beat({ runnerId: "ops-3/12/c", host: "ops-3", pid: 12, role: RunnerRole.STANDBY, epoch: null, startedAt: NOW - 8_000 });
    w.presence.age("ops-3/12/c", PRESENCE_STALE_MS + 1);

    const res = await get(w, "/admin/runners");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      runners: [
        { runnerId: "ops-1/42/a", host: "ops-1", pid: 42, role: "leader", epoch: 5, startedAt: NOW - 60_000, seenAt: NOW, stale: false },
        { runnerId: "ops-2/77/b", host: "ops-2", pid: 77, role: "standby", startedAt: NOW - 9_000, seenAt: NOW, stale: false },
        { runnerId: "ops-3/12/c", host: "ops-3", pid: 12, role: "standby", startedAt: NOW - 8_000, seenAt: NOW - PRESENCE_STALE_MS - 1, stale: true },
      ],
    });
    expect((await get(w, "/admin/runners", {})).status).toBe(401);
  });
});

describe("GET /admin/status/history", () => {
  it("one sample per minute, oldest first, the current minute last: stored counts with this runner's gauges, null where it took none", async () => {
    const w = use(world({ tasks: false, reliable: false }));
    const minute = NOW - (NOW % MINUTE);
    w.db.tables.records.set(1, { ...newProcRecord(1, minute - MINUTE, minute - MINUTE), status: "SUCCEEDED", updatedAt: minute - MINUTE + 10 });
    w.db.tables.records.set(2, { ...newProcRecord(2, minute - MINUTE, minute - MINUTE), status: "DEAD", updatedAt: minute + 1 });
    w.db.tables.records.set(3, newProcRecord(3, minute - MINUTE, minute + 2));
    w.samples.record(minute + 2_000, { backlog: 4, headAgeMs: 1_500, deliveryLagMs: 700, dead: 1, backfillDebt: 0 });

    const res = await get(w, "/admin/status/history?minutes=3");
    expect(res.status).toBe(200);
    const gaugesUnknown = { backlog: null, headAgeMs: null, deliveryLagMs: null, dead: null, backfillDebt: null };
    expect(res.body).toEqual({
      samples: [
        { at: minute - 2 * MINUTE, processed: 0, sent: 0, ...gaugesUnknown },
        { at: minute - MINUTE, processed: 1, sent: 0, ...gaugesUnknown },
        { at: minute, processed: 1, sent: 0, backlog: 4, headAgeMs: 1_500, deliveryLagMs: 700, dead: 1, backfillDebt: 0 },
      ],
    });
    const hour = await get(w, "/admin/status/history");
    expect(hour.body!["samples"]).toHaveLength(60);
    expect((await get(w, "/admin/status/history?minutes=1440")).body!["samples"]).toHaveLength(1440);
  });

  it.each(["0", "1441", "1.5", "-1", "abc", ""])("refuses minutes=%s with 400", async (minutes) => {
    const w = use(world({ tasks: false, reliable: false }));
    const res = await get(w, `/admin/status/history?minutes=${minutes}`);
    expect(res).toMatchObject({ status: 400, body: { error: "bad request", message: expect.stringMatching(/^query minutes: /) } });
  });
});

describe("GET /admin/flights?q=", () => {
  it("finds by FLID or by flight-number prefix in any case, as published payloads", async () => {
    const w = use(world({ tasks: false, reliable: false }));
    for (const f of [flight("101", "CA1234", "2026-03-05T08:00"), flight("102", "CA1299", "2026-03-05T09:00"), flight("103", "MU5101", "2026-03-05T10:00")]) {
      w.db.tables.flights.set(f.flid, f);
    }
    const found = async (query: string) => ((await get(w, `/admin/flights?${query}`)).body!["flights"] as { flid: string }[]).map((f) => f.flid);
    expect(await found("q=ca12")).toEqual(["101", "102"]);
    expect(await found("q=%20CA1234%20")).toEqual(["101"]);
    expect(await found("q=103")).toEqual(["103"]);
    expect(await found("q=ca12&limit=1")).toEqual(["101"]);
    expect(await found("q=ZZ")).toEqual([]);
    const one = await get(w, "/admin/flights?q=101");
    expect(one.body!["flights"][0]).toMatchObject({ flid: "101", stateVersion: 2, fields: { FLNO: "CA1234" } });
  });

  it.each(["", "q=", "q=CA%25", "q=CA_1", `q=${"X".repeat(17)}`, "q=CA&limit=0", "q=CA&limit=101", "q=CA&limit=x"])("refuses ?%s with 400", async (query) => {
    const w = use(world({ tasks: false, reliable: false }));
    const res = await get(w, `/admin/flights?${query}`);
    expect(res).toMatchObject({ status: 400, body: { error: "bad request", message: expect.stringMatching(/^query (q|limit): /) } });
  });
});

describe("GET /admin/flights/recent", () => {
  it("lists the flights changed last, newest first, as published payloads; a bad limit is 400", async () => {
    const w = use(world({ tasks: false, reliable: false }));
    for (const [f, lastMsgId] of [[flight("101", "CA1234", "2026-03-05T08:00"), 5], [flight("102", "CA1299", "2026-03-05T09:00"), 40], [flight("103", "MU5101", "2026-03-05T10:00"), 12]] as const) {
      w.db.tables.flights.set(f.flid, { ...f, lastMsgId });
    }
    const recent = await get(w, "/admin/flights/recent?limit=2");
    expect(recent.status).toBe(200);
    expect((recent.body!["flights"] as { flid: string; lastMsgId: number }[]).map((f) => [f.flid, f.lastMsgId])).toEqual([["102", 40], ["103", 12]]);
    expect(((await get(w, "/admin/flights/recent")).body!["flights"] as unknown[]).length).toBe(3);
    for (const q of ["limit=0", "limit=101", "limit=x"]) expect((await get(w, `/admin/flights/recent?${q}`)).status, q).toBe(400);
  });
});

describe("task events under /admin", () => {
  it("answer 404 'not enabled' when the task service is off", async () => {
    const w = use(world({ tasks: false, reliable: false }));
    for (const res of [await get(w, "/admin/task-events?status=DEAD"), await post(w, "/admin/task-events/replay", { owner: "LMS", reason: "x" })]) {
      expect(res).toMatchObject({ status: 404, body: { error: "not found", message: expect.stringMatching(/task service is not enabled.*tasks\.enabled/) } });
    }
  });

  it("list the dead owner events (status=DEAD) and replay them through the task service's replay", async () => {
    const w = use(world({ tasks: true, reliable: false }));
    await w.taskService.create({ taskId: "T-1", ownerService: "LMS", handlerCode: "H", bizType: "B", bizId: "b1", externalSystem: "ACS" });
    await w.taskService.create({ taskId: "T-2", ownerService: "LMS", handlerCode: "H", bizType: "B", bizId: "b2", externalSystem: "ACS" });
    await w.dispatch.step();
    const feedback = await w.taskService.feedback({ taskId: "T-1", externalEventId: "acs-1", status: "FINISHED" });
    await w.taskService.callback({ taskId: "T-1", eventId: feedback.entry.eventId!, result: "FAILURE", message: "handler dead" });

    const dead = await get(w, "/admin/task-events?status=DEAD");
    expect(dead).toMatchObject({ status: 200, body: { tasks: [{ taskId: "T-1", callbackError: "handler dead" }], next: null } });
    expect((await get(w, "/admin/task-events?limit=1")).body).toMatchObject({ tasks: [{ taskId: "T-1" }], next: "T-1" });
    expect((await get(w, "/admin/task-events?status=DISPATCHED")).body).toMatchObject({ tasks: [{ taskId: "T-2" }] });

    const dry = await post(w, "/admin/task-events/replay", { taskIds: ["T-1"], reason: "fixed the handler", dryRun: true });
    expect(dry).toMatchObject({ status: 200, body: { dryRun: true, candidates: [{ taskId: "T-1", eligible: true }], replayed: [] } });
    const done = await post(w, "/admin/task-events/replay", { taskIds: ["T-1"], reason: "fixed the handler", by: "duty engineer" });
    expect(done).toMatchObject({ status: 200, body: { replayId: "replay-1", replayed: ["T-1"] } });
    expect((await get(w, "/admin/task-events?status=DEAD")).body).toEqual({ tasks: [], next: null });
  });

  it("list the tasks reported overdue (status=OVERDUE): DISPATCHED / EXECUTING past their deadline or heartbeat", async () => {
    const w = use(world({ tasks: true, reliable: false }));
    await w.taskService.create({ taskId: "T-slow", ownerService: "LMS", handlerCode: "SLOW", bizType: "B", bizId: "b1", externalSystem: "ACS" });
    await w.taskService.create({ taskId: "T-fast", ownerService: "LMS", handlerCode: "H", bizType: "B", bizId: "b2", externalSystem: "ACS" });
    await w.dispatch.step();
    expect((await get(w, "/admin/task-events?status=OVERDUE")).body).toEqual({ tasks: [], next: null });
    w.clock.advance(1_000);
    expect((await new TaskOverdueJob({ store: w.taskStore, clock: w.clock }).step()).overdue).toEqual({ DEADLINE: 0, HEARTBEAT: 1 });
    const overdue = await get(w, "/admin/task-events?status=OVERDUE");
    expect(overdue).toMatchObject({ status: 200, body: { tasks: [{ taskId: "T-slow", status: "DISPATCHED", heartbeatMs: 1_000, heartbeatOverdueAt: w.clock.now() }], next: null } });
    expect((overdue.body!["tasks"] as unknown[]).length).toBe(1);
  });

  it.each([
    ["GET", "/admin/task-events?status=ZOMBIE", undefined],
    ["GET", "/admin/task-events?limit=0", undefined],
    ["GET", "/admin/task-events?limit=501", undefined],
    ["POST", "/admin/task-events/replay", { owner: "LMS" }],
    ["POST", "/admin/task-events/replay", { owner: "LMS", reason: "x", extra: 1 }],
    ["POST", "/admin/task-events/replay", "{not json"],
  ] as const)("%s %s with bad parameters is a 400", async (method, url, body) => {
    const w = use(world({ tasks: true, reliable: false }));
    const res = method === "GET" ? await get(w, url) : await post(w, url, body);
    expect(res).toMatchObject({ status: 400, body: { error: "bad request" } });
  });

  it("a replay the task service refuses (no selection) is its 4xx, not a 500", async () => {
    const w = use(world({ tasks: true, reliable: false }));
    const res = await post(w, "/admin/task-events/replay", { reason: "x" });
    expect(res).toMatchObject({ status: 400, body: { code: "INVALID" } });
  });
});

describe("reliable-message queues under /admin", () => {
  it("answer 404 'not enabled' when the reliable-message service is off", async () => {
    const w = use(world({ tasks: false, reliable: false }));
    for (const res of [await get(w, "/admin/reliable-messages/queues"), await post(w, "/admin/reliable-messages/queues/orders/replay-dead")]) {
      expect(res).toMatchObject({ status: 404, body: { error: "not found", message: expect.stringMatching(/reliable-message service is not enabled.*reliable\.enabled/) } });
    }
  });

  it("list waiting and dead per queue, and resend a queue's dead messages through the service (waking the relay)", async () => {
    const w = use(world({ tasks: false, reliable: true }));
    const prepare = (id: string, queue: string, confirm: boolean) => w.rm.prepare({ messageId: id, queue, body: "pay 10" }, confirm);
    await prepare("o-1", "orders", false);
    await prepare("o-2", "orders", true);
    await prepare("o-3", "orders", true);
    await prepare("i-1", "invoices", true);
    await w.rm.reject("o-3", "consumer gave up");
    expect((await w.rm.get("o-3"))?.phase).toBe("DEAD");

    const queues = await get(w, "/admin/reliable-messages/queues");
    expect(queues.status).toBe(200);
    expect(queues.body).toEqual({
      queues: [
        { queue: "invoices", waiting: 1, review: 0, dead: 0, phases: { WAITING_CONFIRM: 0, REVIEW: 0, SENDING: 1, DEAD: 0, ACKNOWLEDGED: 0, CANCELLED: 0 } },
        { queue: "orders", waiting: 2, review: 0, dead: 1, phases: { WAITING_CONFIRM: 1, REVIEW: 0, SENDING: 1, DEAD: 1, ACKNOWLEDGED: 0, CANCELLED: 0 } },
      ],
    });

    const wakes = w.relayWakes();
    const replay = await post(w, "/admin/reliable-messages/queues/orders/replay-dead");
    expect(replay).toMatchObject({ status: 200, body: { resent: 1 } });
    expect(w.relayWakes()).toBe(wakes + 1);
    expect((await get(w, "/admin/reliable-messages/queues")).body!["queues"][1]).toMatchObject({ queue: "orders", waiting: 3, dead: 0 });
    // The listing of one message is still the message route, not the queue list.
    expect((await get(w, "/admin/reliable-messages/o-1")).body).toMatchObject({ messageId: "o-1" });
  });
});
