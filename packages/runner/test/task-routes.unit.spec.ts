/**
 * `/task/v1`, the task service over HTTP (issue 21), through fastify's inject on the runner's own
 * server over the in-memory store and dispatcher: the flows of the design (create → dispatched →
 * executing → finished → callback; cancel before and after dispatch; a dead event replayed) and
 * every client mistake as a 4xx — 400 bad body, 401 without its token, 404 unknown task, 409
 * callback mismatch / cancel too late / illegal state, 422 unknown owner — never a 500, none
 * logged at error; an unreachable executing system during a cancel is a 503.
 */
import { DispatchJob, TaskService } from "@msgx/tasks";
import { type Logger } from "@msgx/core";
import { InMemoryPipelineStore, ManualClock, RecordingLogger } from "@msgx/core/testing";
import { InMemoryTaskDispatcher, InMemoryTaskStore } from "@msgx/tasks/testing";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import type { HttpContext } from "../src/http/http-context.js";
import { createHttpServer } from "../src/http/http-server.js";
import { directTaskApi } from "../src/tasks/task-api.js";
import { createTaskMetrics } from "../src/tasks/task-metrics.js";
import { injectJson, pipelineLessContext } from "./route-spec.js";

const TASK_TOKEN = "task-token-for-owners-and-acs";
const ADMIN_TOKEN = "admin-token-for-operators";
const AUTH = { authorization: `Bearer ${TASK_TOKEN}` };

function world() {
  const clock = new ManualClock();
  const store = new InMemoryTaskStore(clock, new InMemoryPipelineStore(clock));
  const dispatcher = new InMemoryTaskDispatcher();
  const logger = new RecordingLogger();
  const service = new TaskService({ store, clock, logger, dispatcher, routing: { mode: "owner-header", topic: "TASK_EVENT_TOPIC", owners: ["LMS", "WMS"] }, ids: () => "replay-1" });
  const job = new DispatchJob({ store, dispatcher, clock, logger });
  const metrics = createTaskMetrics(clock);
  let events = 0;
  const ctx = {
    ...pipelineLessContext(logger as Logger, ADMIN_TOKEN),
    metrics: async () => ({ contentType: "text/plain", body: await metrics.render() }),
    reliable: {} as HttpContext["reliable"],
    tasks: directTaskApi({ service, store, metrics, onEvent: () => void (events += 1) }),
    tasksToken: TASK_TOKEN,
  } satisfies HttpContext;
  const app = createHttpServer(ctx);
  return { app, service, store, dispatcher, job, logger, clock, metrics, events: () => events };
}

type World = ReturnType<typeof world>;
const apps: World["app"][] = [];
afterAll(async () => {
  for (const app of apps) await app.close();
});

const call = (w: World, method: "GET" | "POST", url: string, body?: unknown, headers: Record<string, string> = AUTH) => injectJson(w.app, method, url, body, headers);

const newTask = (taskId: string, extra: Record<string, unknown> = {}) => ({
  taskId,
  ownerService: "LMS",
  handlerCode: "LMS_STOCK_AREA_CALL_TUBE",
  bizType: "STOCK_AREA_CALL_TUBE",
  bizId: `biz-${taskId}`,
  externalSystem: "ACS",
  externalTaskType: "3",
  payload: { from: "A1", to: "B2" },
  ...extra,
});
const create = (w: World, id: string, extra: Record<string, unknown> = {}) => call(w, "POST", "/task/v1/tasks", newTask(id, extra));
const feedback = (w: World, id: string, externalEventId: string, status: string, extra: Record<string, unknown> = {}) =>
  call(w, "POST", `/task/v1/tasks/${id}/feedback`, { externalEventId, status, ...extra });

describe("/task/v1", () => {
  let w: World;
  beforeEach(async () => {
    w = world();
    apps.push(w.app);
    await w.app.ready();
  });

  it("create takes the seed's own body (places, requestPayload) and answers a taskNo; a repeat keeps it; GET by number is 200, 404 unknown, 400 malformed", async () => {
    const seedBody = {
      taskId: "T-seed",
      ownerService: "LMS",
      bizType: "STOCK_AREA_CALL_TUBE",
      bizId: "LMS业务记录ID",
      handlerCode: "LMS_STOCK_AREA_CALL_TUBE",
      externalSystem: "ACS",
      externalTaskType: "3",
      startPointCode: "备货区起点",
      endPointCode: "机械手旁备货区终点",
      vehicleCode: "纸管载具号",
      requestPayload: { to_material: "xxx,xxx", product_area: "BLK" },
    };
    const first = await call(w, "POST", "/task/v1/tasks", seedBody);
    expect(first).toMatchObject({ status: 201, body: { task: { taskNo: "T202603050001", startPointCode: "备货区起点", endPointCode: "机械手旁备货区终点", vehicleCode: "纸管载具号", payload: seedBody.requestPayload } } });
    expect(await call(w, "POST", "/task/v1/tasks", seedBody)).toMatchObject({ status: 200, body: { created: false, task: { taskNo: "T202603050001" } } });
    expect((await create(w, "T-next")).body).toMatchObject({ task: { taskNo: "T202603050002", startPointCode: null, vehicleCode: null } });
    expect(await call(w, "GET", "/task/v1/tasks/by-no/T202603050001")).toMatchObject({ status: 200, body: { task: { taskId: "T-seed" }, feedback: [], callbacks: [] } });
    expect(await call(w, "GET", "/task/v1/tasks/by-no/T202603059999")).toMatchObject({ status: 404, body: { code: "NOT_FOUND" } });
    const malformed = await call(w, "GET", "/task/v1/tasks/by-no/T2026-03");
    expect(malformed.status).toBe(400);
    expect(JSON.stringify(malformed.body)).toMatch(/taskNo: must be a task number/);
  });

  it("the places are checked: a wrong type or length is 400 naming the field; payload and requestPayload together are 400; nothing is stored", async () => {
    for (const [extra, field] of [
      [{ startPointCode: 7 }, "startPointCode"],
      [{ endPointCode: "" }, "endPointCode"],
      [{ vehicleCode: "v".repeat(129) }, "vehicleCode"],
      [{ requestPayload: "x" }, "requestPayload"],
      [{ requestPayload: { a: 1 } }, "requestPayload"],
      // PostgreSQL stores no NUL in text or jsonb: refused where the body is read, naming the field.
      [{ startPointCode: "A\u0000B" }, "startPointCode"],
      [{ requestPayload: { to: { gate: "B\u0000" } } }, "gate"],
    ] as const) {
      const answer = await create(w, "T-bad", extra);
      expect(answer.status, JSON.stringify(extra)).toBe(400);
      expect(JSON.stringify(answer.body), JSON.stringify(extra)).toContain(field);
    }
    expect((await call(w, "GET", "/task/v1/tasks/T-bad")).status).toBe(404);
    expect(w.logger.at("error")).toEqual([]);
  });

  it("create → dispatched by the job → executing (progress) → finished → callback SUCCESS: FINISHED; a repeat create is 200", async () => {
    const first = await create(w, "T-1");
    expect(first).toMatchObject({ status: 201, body: { created: true, task: { taskId: "T-1", status: "CREATED", version: 1 } } });
    expect((await create(w, "T-1")).status).toBe(200);
    expect(await w.job.step()).toMatchObject({ dispatched: 1 });

    const executing = await feedback(w, "T-1", "acs-1", "EXECUTING", { progress: { percent: 40 } });
    expect(executing).toMatchObject({ status: 200, body: { outcome: "APPLIED", duplicate: false, task: { status: "EXECUTING", externalTaskNo: "EXT-1" } } });
    const finished = await feedback(w, "T-1", "acs-2", "FINISHED", { message: "done" });
    expect(finished).toMatchObject({ status: 200, body: { outcome: "APPLIED", eventId: expect.stringMatching(/^T-1#/), task: { status: "FINISHED_PENDING_CALLBACK" } } });
    const eventsSoFar = w.events();
    expect(eventsSoFar).toBeGreaterThanOrEqual(1);
    const again = await feedback(w, "T-1", "acs-2", "FINISHED", { message: "done" });
    expect(again).toMatchObject({ status: 200, body: { duplicate: true } });
    expect(w.events()).toBe(eventsSoFar);

    const eventId = finished.body!["eventId"] as string;
    const cb = await call(w, "POST", "/task/v1/callbacks", { taskId: "T-1", eventId, result: "SUCCESS" });
    expect(cb).toMatchObject({ status: 200, body: { outcome: "APPLIED", status: "FINISHED" } });
    // The seed's route is an alias; a repeat is harmless.
    expect(await call(w, "POST", "/rpc-api/task/callback-result", { taskId: "T-1", eventId, result: "SUCCESS", message: null })).toMatchObject({ status: 200, body: { outcome: "DUPLICATE" } });

    const shown = await call(w, "GET", "/task/v1/tasks/T-1");
    expect(shown.status).toBe(200);
    expect(shown.body!["task"]).toMatchObject({ status: "FINISHED", externalTaskNo: "EXT-1" });
    expect((shown.body!["feedback"] as unknown[]).length).toBe(2);
    expect((shown.body!["callbacks"] as { outcome: string }[]).map((c) => c.outcome)).toEqual(["APPLIED", "DUPLICATE"]);
    expect(w.logger.at("error")).toEqual([]);
  });

  it("dispatch: false keeps manual dispatch (POST …/dispatched); lists page by id with status and owner filters", async () => {
    for (const id of ["L-1", "L-2", "L-3"]) expect((await create(w, id, { dispatch: false })).status).toBe(201);
    expect((await create(w, "W-1", { ownerService: "WMS", dispatch: false })).status).toBe(201);
    expect(await w.job.step()).toMatchObject({ examined: 0 });
    expect(await call(w, "POST", "/task/v1/tasks/L-2/dispatched", { externalTaskNo: "ACS-77" })).toMatchObject({ status: 200, body: { task: { status: "DISPATCHED", externalTaskNo: "ACS-77" } } });

    const page1 = await call(w, "GET", "/task/v1/tasks?owner=LMS&size=2");
    expect(page1.body!["tasks"].map((t: { taskId: string }) => t.taskId)).toEqual(["L-1", "L-2"]);
    expect(page1.body!["next"]).toBe("L-2");
    const page2 = await call(w, "GET", "/task/v1/tasks?owner=LMS&size=2&after=L-2");
    expect(page2.body).toMatchObject({ tasks: [{ taskId: "L-3" }], next: null });
    const dispatched = await call(w, "GET", "/task/v1/tasks?status=DISPATCHED");
    expect(dispatched.body!["tasks"].map((t: { taskId: string }) => t.taskId)).toEqual(["L-2"]);
    // None overdue (no timeouts here): overdue=true lists nothing, overdue=false the same as no filter.
    expect((await call(w, "GET", "/task/v1/tasks?overdue=true")).body).toEqual({ tasks: [], next: null });
    expect((await call(w, "GET", "/task/v1/tasks?overdue=false&size=2")).body!["next"]).toBe("L-2");
  });

  it("cancel before dispatch records it at once (idempotent); after dispatch, or while waiting for it, it cancels in the executing system first", async () => {
    await create(w, "C-1", { dispatch: false });
    const before = await call(w, "POST", "/task/v1/tasks/C-1/cancel", { reason: "operator", requestId: "req-1" });
    expect(before).toMatchObject({ status: 200, body: { outcome: "cancelled", task: { status: "CANCEL_PENDING_CALLBACK" } } });
    expect(await call(w, "POST", "/task/v1/tasks/C-1/cancel", { reason: "operator", requestId: "req-1" })).toMatchObject({ status: 200, body: { outcome: "already" } });
    expect(w.dispatcher.cancels).toEqual([]);

    await create(w, "C-2");
    await w.job.step();
    const after = await call(w, "POST", "/task/v1/tasks/C-2/cancel", { reason: "no longer needed" });
    expect(after).toMatchObject({ status: 200, body: { outcome: "cancelled", task: { status: "CANCEL_PENDING_CALLBACK" } } });
    expect(w.dispatcher.cancels).toEqual([{ taskId: "C-2", reason: "no longer needed" }]);

    // Waiting for the dispatch job: its dispatch may have been accepted with the answer lost, so the executing system is asked too.
    await create(w, "C-3");
    expect(await call(w, "POST", "/task/v1/tasks/C-3/cancel", { reason: "changed my mind" })).toMatchObject({ status: 200, body: { outcome: "cancelled" } });
    expect(w.dispatcher.cancels.at(-1)).toEqual({ taskId: "C-3", reason: "changed my mind" });
    expect(await w.job.step()).toMatchObject({ dispatched: 0 });
  });

  it("replays a dead event: a dry run lists it, the replay publishes it again and counts it", async () => {
    await create(w, "R-1");
    await w.job.step();
    const finished = await feedback(w, "R-1", "acs-1", "FINISHED");
    const eventId = finished.body!["eventId"] as string;
    expect(await call(w, "POST", "/task/v1/callbacks", { taskId: "R-1", eventId, result: "FAILURE", message: "handler dead" })).toMatchObject({ status: 200, body: { outcome: "RECORDED" } });

    const dry = await call(w, "POST", "/task/v1/replay", { owner: "LMS", reason: "fixed the handler", dryRun: true });
    expect(dry).toMatchObject({ status: 200, body: { replayId: null, dryRun: true, candidates: [{ taskId: "R-1", eligible: true }], replayed: [] } });
    const before = w.events();
    const done = await call(w, "POST", "/task/v1/replay", { taskIds: ["R-1"], reason: "fixed the handler", by: "ops" });
    expect(done).toMatchObject({ status: 200, body: { replayId: "replay-1", replayed: ["R-1"] } });
    expect(w.events()).toBe(before + 1);
    expect((await w.service.get("R-1"))?.callbackError).toBeNull();
    expect(await w.metrics.render()).toMatch(/^msgx_task_replays_total 1$/m);
  });

  it("answers 400 for a body that is malformed, of the wrong shape, or breaks a rule of the task", async () => {
    const bad = async (url: string, body: unknown, pattern: RegExp, code?: string) => {
      const a = await call(w, "POST", url, body);
      expect(a.status, `${url} ${JSON.stringify(body)}`).toBe(400);
      expect(a.body).toMatchObject({ error: "bad request", message: expect.stringMatching(pattern), ...(code ? { code } : {}) });
      expect(JSON.stringify(a.body)).not.toMatch(/at .*\.ts:\d+/);
    };
    await bad("/task/v1/tasks", "{not json", /not JSON/);
    await bad("/task/v1/tasks", { ...newTask("X"), taskId: undefined }, /taskId/);
    await bad("/task/v1/tasks", { ...newTask("X"), owner: "LMS" }, /owner/);
    await bad("/task/v1/tasks", { ...newTask("X"), payload: [1] }, /payload/);
    await bad("/task/v1/tasks", newTask("has space"), /taskId/, "INVALID");
    await bad("/task/v1/tasks", { ...newTask("X"), handlerCode: "-bad" }, /handlerCode/, "INVALID");
    await create(w, "B-1");
    await bad("/task/v1/tasks/B-1/feedback", { externalEventId: "e", status: "DONE" }, /status must be one of/);
    await bad("/task/v1/tasks/B-1/feedback", { status: "FINISHED" }, /externalEventId/);
    await bad("/task/v1/tasks/B-1/feedback", { externalEventId: "e", status: "EXECUTING", progress: "x".repeat(2_001) }, /progress/, "INVALID");
    await bad("/task/v1/tasks/B-1/cancel", {}, /reason/);
    await bad("/task/v1/tasks/B-1/cancel", { reason: "  " }, /reason/, "INVALID");
    await bad("/task/v1/tasks/B-1/dispatched", { externalTaskNo: "" }, /externalTaskNo/);
    await bad("/task/v1/callbacks", { taskId: "B-1", eventId: "B-1#2", result: "OK" }, /result must be SUCCESS or FAILURE/);
    await bad("/task/v1/replay", { reason: "x" }, /taskIds, owner or handlerCode/, "INVALID");
    await bad("/task/v1/replay", { owner: "LMS" }, /reason/);
    expect((await call(w, "GET", "/task/v1/tasks?size=0")).status).toBe(400);
    expect((await call(w, "GET", "/task/v1/tasks?status=DONE")).status).toBe(400);
    expect(await call(w, "GET", "/task/v1/tasks?overdue=yes")).toMatchObject({ status: 400, body: { message: expect.stringMatching(/query overdue: overdue must be true or false/) } });
    expect(await call(w, "GET", "/task/v1/tasks?page=2")).toMatchObject({ status: 400, body: { message: expect.stringMatching(/query page: pages are by key: after=/) } });
  });

  it("answers 401 without its token, and with the admin token: /task/v1 has its own", async () => {
    expect((await call(w, "GET", "/task/v1/tasks/T-1", undefined, {})).status).toBe(401);
    expect((await call(w, "GET", "/task/v1/tasks/T-1", undefined, { authorization: `Bearer ${ADMIN_TOKEN}` })).status).toBe(401);
    const anonymous = await call(w, "POST", "/task/v1/tasks", newTask("A-1"), {});
    expect(anonymous).toMatchObject({ status: 401, body: { error: "unauthorized" } });
    expect((await call(w, "POST", "/rpc-api/task/callback-result", { taskId: "A-1", eventId: "A-1#2", result: "SUCCESS" }, {})).status).toBe(401);
    expect(await w.service.get("A-1")).toBeUndefined();
  });

  it("answers 404 for an unknown task: get, feedback, cancel, dispatched, callback", async () => {
    expect(await call(w, "GET", "/task/v1/tasks/nobody")).toMatchObject({ status: 404, body: { code: "NOT_FOUND" } });
    expect(await feedback(w, "nobody", "e-1", "FINISHED")).toMatchObject({ status: 404, body: { code: "NOT_FOUND" } });
    expect((await call(w, "POST", "/task/v1/tasks/nobody/cancel", { reason: "x" })).status).toBe(404);
    expect((await call(w, "POST", "/task/v1/tasks/nobody/dispatched", { externalTaskNo: "N-1" })).status).toBe(404);
    expect((await call(w, "POST", "/task/v1/callbacks", { taskId: "nobody", eventId: "nobody#2", result: "SUCCESS" })).status).toBe(404);
  });

  it("answers 409: callback for another event, cancel too late, cancel of a finished task, a task id reused", async () => {
    await create(w, "K-1");
    await w.job.step();
    const eventId = (await feedback(w, "K-1", "acs-1", "FINISHED")).body!["eventId"] as string;
    const mismatch = await call(w, "POST", "/task/v1/callbacks", { taskId: "K-1", eventId: "K-1#99", result: "SUCCESS" });
    expect(mismatch).toMatchObject({ status: 409, body: { error: "conflict", code: "CALLBACK_REJECTED", outcome: "REJECTED", status: "FINISHED_PENDING_CALLBACK" } });
    expect(await call(w, "POST", "/task/v1/tasks/K-1/cancel", { reason: "x" })).toMatchObject({ status: 409, body: { code: "ILLEGAL_STATE" } });
    expect((await call(w, "POST", "/task/v1/callbacks", { taskId: "K-1", eventId, result: "SUCCESS" })).status).toBe(200);

    await create(w, "K-2");
    await w.job.step();
    w.dispatcher.finish("K-2");
    expect(await call(w, "POST", "/task/v1/tasks/K-2/cancel", { reason: "too late" })).toMatchObject({ status: 409, body: { code: "TOO_LATE" } });
    expect((await w.service.get("K-2"))?.status).toBe("DISPATCHED");

    expect(await create(w, "K-1", { bizId: "another" })).toMatchObject({ status: 409, body: { code: "CONFLICT" } });
    expect(w.logger.at("error")).toEqual([]);
  });

  it("answers 422 UNKNOWN_OWNER for an owner the routing does not know, and stores nothing", async () => {
    const a = await create(w, "U-1", { ownerService: "MES" });
    expect(a).toMatchObject({ status: 422, body: { error: "unprocessable entity", code: "UNKNOWN_OWNER", message: expect.stringMatching(/MES/) } });
    expect(await w.service.get("U-1")).toBeUndefined();
  });

  it("answers 503 (retry) when the executing system cannot be reached for a cancel; nothing changes", async () => {
    await create(w, "O-1");
    await w.job.step();
    w.dispatcher.down = true;
    const a = await call(w, "POST", "/task/v1/tasks/O-1/cancel", { reason: "x" });
    expect(a.status).toBe(503);
    expect((await w.service.get("O-1"))?.status).toBe("DISPATCHED");
  });
});
