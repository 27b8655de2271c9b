import { TASK_NO_PATTERN, TaskCallbackResult, TaskFeedbackStatus, TaskStatus, type TaskReplayResult } from "@msgx/tasks";
import { z } from "zod";
import { callbackRefused, type TaskApi } from "../tasks/task-api.js";
import { requireBearer } from "./bearer-token.js";
import type { HttpApp } from "./http-app.js";
import { TASK_ERROR_STATUSES } from "./http-error.js";
import { documentScope } from "./route-docs.js";
import { acceptJsonBodies } from "./json-body.js";
import { decimal, routeName } from "./zod-validation.js";

const text = z.string().nullish();
const required = (name: string) => z.string({ error: `${name} is required (a string)` });
/** One of the seed's places (a point or vehicle code): a string of 1..128 characters, or absent / null. */
const place = (name: string) =>
  z
    .string({ error: `${name} must be a string of 1..128 characters` })
    .min(1, `${name} must be a string of 1..128 characters`)
    .max(128, `${name} must be a string of 1..128 characters`)
    .nullish();
const jsonObject = (name: string) => z.record(z.string(), z.unknown(), { error: `${name} must be a JSON object` }).nullish();

/**
 * The body of a create: the seed's `createTask` body (its places and `requestPayload` included)
 * plus `taskId`, the caller's idempotency key. Types are checked here; the patterns and lengths
 * are the service's (`newTaskRecord`), answered 400 INVALID. Unknown keys are refused.
 */
const createBody = z
  .object({
    taskId: required("taskId"),
    ownerService: required("ownerService"),
    handlerCode: required("handlerCode"),
    bizType: required("bizType"),
    bizId: required("bizId"),
    externalSystem: required("externalSystem"),
    externalTaskType: text,
    /** Where the executing system starts (the seed's `startPointCode`). */
    startPointCode: place("startPointCode"),
    /** Where it ends (`endPointCode`). */
    endPointCode: place("endPointCode"),
    /** The vehicle or carrier it moves (`vehicleCode`). */
    vehicleCode: place("vehicleCode"),
    payload: jsonObject("payload"),
    /** The seed's name of `payload`; one of the two at most. */
    requestPayload: jsonObject("requestPayload"),
    /** false: the caller dispatches the task itself and reports `/dispatched`. */
    dispatch: z.boolean().nullish(),
  })
  .strict()
  .refine((b) => !(b.payload && b.requestPayload), { message: "payload and requestPayload are the same field: send one", path: ["requestPayload"] });
const feedbackBody = z
  .object({
    externalEventId: required("externalEventId"),
    status: z.enum(TaskFeedbackStatus, { error: `status must be one of ${Object.values(TaskFeedbackStatus).join(", ")}` }),
    externalTaskNo: text,
    /** A cancel reason or message, passed on to the owner. */
    message: text,
    /** EXECUTING only: how far the task is (free text or JSON, at most 2000 characters as text), in the TASK_EXECUTING event. */
    progress: z.unknown().optional(),
  })
  .strict();
const cancelBody = z
  .object({
    reason: required("reason"),
    /** The caller's id of this cancel (its idempotency key); default `cancel`. */
    requestId: text,
  })
  .strict();
/** A replay selects by ids, owner and/or handler code (at least one, checked by the service). `POST /admin/task-events/replay` takes it too. */
export const taskReplayBody = z
  .object({
    taskIds: z.array(z.string(), { error: "taskIds must be a list of task ids" }).nullish(),
    owner: text,
    handlerCode: text,
    reason: required("reason"),
    /** Who asks (the audit row's `by`); default `http`. */
    by: text,
    dryRun: z.boolean().nullish(),
  })
  .strict();
const dispatchedBody = z.object({ externalTaskNo: required("externalTaskNo").min(1, "externalTaskNo is empty") }).strict();
/** The seed's callback-result body (seed 001 §9.1). */
const callbackBody = z
  .object({
    taskId: required("taskId"),
    eventId: required("eventId"),
    result: z.enum(TaskCallbackResult, { error: "result must be SUCCESS or FAILURE" }),
    message: text,
  })
  .strict();
const listQuery = z.object({
  status: z.enum(TaskStatus).optional(),
  owner: routeName(64).optional(),
  /** `true`: only tasks reported overdue (TASK_OVERDUE) and still DISPATCHED / EXECUTING. */
  overdue: z.enum(["true", "false"], { error: "overdue must be true or false" }).optional(),
  /** The last taskId of the previous page (`next` of its answer). */
  after: routeName(128).optional(),
  size: decimal(1, 500).default(20),
  // Pages are by key (`after`), not by number: a `page` is refused rather than silently ignored.
  page: z.undefined({ error: "pages are by key: after=<the last taskId of the previous page> (the answer's next)" }).optional(),
});
/** A task id (core's `assertTaskId`: at most 128 characters). */
const idParams = z.object({ id: routeName(128) });
/** A task number (`T202607130001`). */
const taskNoParams = z.object({ taskNo: z.string().regex(TASK_NO_PATTERN, "must be a task number: T, a day yyyyMMdd and a sequence of 4 or more digits (T202607130001)") });

const orUndefined = <T>(v: T | null | undefined): T | undefined => (v === null ? undefined : v);

/** Replays the dead owner events a replay body selects; `by` defaults to `defaultBy`. */
export function replayTasks(api: TaskApi, b: z.infer<typeof taskReplayBody>, defaultBy: string): Promise<TaskReplayResult> {
  const filter = { ...(b.taskIds ? { taskIds: b.taskIds } : {}), ...(b.owner ? { owner: b.owner } : {}), ...(b.handlerCode ? { handlerCode: b.handlerCode } : {}) };
  return api.replay(filter, { by: b.by ?? defaultBy, reason: b.reason, dryRun: b.dryRun === true });
}

/** The owner's callback route of the seed, kept as an alias of `POST /task/v1/callbacks`. */
export const SEED_CALLBACK_ROUTE = "/rpc-api/task/callback-result";

/**
 * `/task/v1`: the task service for owners and the executing system over HTTP (docs/task-routing.md
 * "Hosted by the msgx runner"), behind its own bearer token (`tasks.token`, else `http.token`),
 * checked before the body is read. Bodies are JSON up to `maxBodyBytes`. Every client mistake is a
 * 4xx `{ error, message, code? }`: 400 INVALID (and any malformed request), 404 NOT_FOUND,
 * 409 CONFLICT / ILLEGAL_STATE / TOO_LATE / CANCEL_FAILED / CALLBACK_REJECTED, 422 UNKNOWN_OWNER.
 * An executing system that cannot be reached during a cancel is a 503 (retry-after).
 */
export function registerTaskRoutes(app: HttpApp, api: TaskApi, token: string | undefined, maxBodyBytes: number): void {
  requireBearer(app, token);
  documentScope(app, { errors: TASK_ERROR_STATUSES });
  acceptJsonBodies(app, maxBodyBytes);

  app.post("/task/v1/tasks", { schema: { body: createBody } }, async (request, reply) => {
    const b = request.body;
    const { created, task } = await api.create({
      taskId: b.taskId,
      ownerService: b.ownerService,
      handlerCode: b.handlerCode,
      bizType: b.bizType,
      bizId: b.bizId,
      externalSystem: b.externalSystem,
      externalTaskType: orUndefined(b.externalTaskType),
      startPointCode: orUndefined(b.startPointCode),
      endPointCode: orUndefined(b.endPointCode),
      vehicleCode: orUndefined(b.vehicleCode),
      ...(b.payload || b.requestPayload ? { payload: b.payload ?? b.requestPayload ?? {} } : {}),
      ...(typeof b.dispatch === "boolean" ? { dispatch: b.dispatch } : {}),
    });
    return reply.code(created ? 201 : 200).send({ created, task });
  });
  app.get("/task/v1/tasks", { schema: { querystring: listQuery } }, async (request) => {
    const { overdue, ...query } = request.query;
    return api.list({ ...query, overdue: overdue === "true" });
  });
  app.get("/task/v1/tasks/:id", { schema: { params: idParams } }, async (request, reply) => {
    const view = await api.get(request.params.id);
    return view ?? reply.code(404).send({ error: "not found", code: "NOT_FOUND", message: `no task ${request.params.id}` });
  });
  app.get("/task/v1/tasks/by-no/:taskNo", { schema: { params: taskNoParams } }, async (request, reply) => {
    const view = await api.getByTaskNo(request.params.taskNo);
    return view ?? reply.code(404).send({ error: "not found", code: "NOT_FOUND", message: `no task numbered ${request.params.taskNo}` });
  });
  app.post("/task/v1/tasks/:id/feedback", { schema: { params: idParams, body: feedbackBody } }, async (request) => {
    const b = request.body;
    const progress = b.progress === undefined || b.progress === null || typeof b.progress === "string" ? b.progress : JSON.stringify(b.progress);
    return api.feedback({ taskId: request.params.id, externalEventId: b.externalEventId, status: b.status, externalTaskNo: orUndefined(b.externalTaskNo), reason: orUndefined(b.message), progress: orUndefined(progress) });
  });
  app.post("/task/v1/tasks/:id/cancel", { schema: { params: idParams, body: cancelBody } }, async (request) => api.cancel(request.params.id, { reason: request.body.reason, requestId: orUndefined(request.body.requestId) }));
  app.post("/task/v1/replay", { schema: { body: taskReplayBody } }, async (request) => replayTasks(api, request.body, "http"));
  app.post("/task/v1/tasks/:id/dispatched", { schema: { params: idParams, body: dispatchedBody } }, async (request) => ({
    task: await api.dispatched(request.params.id, request.body.externalTaskNo),
  }));
  for (const url of ["/task/v1/callbacks", SEED_CALLBACK_ROUTE]) {
    app.post(url, { schema: { body: callbackBody } }, async (request, reply) => {
      const b = request.body;
      const view = await api.callback({ taskId: b.taskId, eventId: b.eventId, result: b.result, message: orUndefined(b.message) });
      if (!callbackRefused(view)) return view;
      return reply.code(409).send({ error: "conflict", code: "CALLBACK_REJECTED", message: view.reason ?? "the callback does not match the task", ...view });
    });
  }
}
