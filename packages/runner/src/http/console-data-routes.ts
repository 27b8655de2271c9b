import { FLIGHT_SEARCH_TEXT, flightToPayload, MAX_FLIGHT_SEARCH_LIMIT, MAX_THROUGHPUT_MINUTES, type RunnerPresence } from "@msgx/core";
import { TaskStatus } from "@msgx/tasks";
import { z } from "zod";
import type { HttpApp } from "./http-app.js";
import type { HttpContext } from "./http-context.js";
import { HttpError } from "./http-error.js";
import { replayTasks, taskReplayBody } from "./task-routes.js";
import { decimal, routeName, routeQueue } from "./zod-validation.js";

/**
 * `status=DEAD` lists the tasks whose owner event is dead (what a replay takes); `status=OVERDUE`
 * the tasks reported past their deadline or heartbeat; any other is a task status.
 */
const DEAD = "DEAD";
const OVERDUE = "OVERDUE";
const taskEventsQuery = z.object({
  status: z.enum([DEAD, OVERDUE, ...Object.values(TaskStatus)], { error: `status must be ${DEAD}, ${OVERDUE} or a task status (${Object.values(TaskStatus).join(", ")})` }).optional(),
  /** The last taskId of the previous page (`next` of its answer). */
  after: routeName(128).optional(),
  limit: decimal(1, 500).default(50),
});
const flightSearchQuery = z.object({
  q: z
    .string({ error: "q is required: a FLID or the start of a flight number" })
    .trim()
    .regex(FLIGHT_SEARCH_TEXT, "q must be a FLID or the start of a flight number: 1 to 16 letters and digits"),
  limit: decimal(1, MAX_FLIGHT_SEARCH_LIMIT).default(20),
});

const notEnabled = (service: string, setting: string) => new HttpError(404, `the ${service} is not enabled on this runner (${setting})`);

/** A runner as `/admin/runners` shows it: `epoch` only for a leader that has one. */
const runnerView = ({ epoch, ...r }: RunnerPresence) => ({ ...r, ...(epoch !== null ? { epoch } : {}) });

/**
 * The console's data routes under `/admin` (behind the admin token; docs/operations.md "Console
 * data"): the runners, the status history, the flight search, and the task-event and
 * reliable-queue views and replays — each delegating to what the runner already does (the task
 * service's replay, the reliable service's dead-letter resend). A service that is off answers 404.
 */
export function registerConsoleDataRoutes(app: HttpApp, ctx: HttpContext): void {
  const ops = () => {
    if (!ctx.ops) throw new HttpError(404, "the console's reads are not available on this runner");
    return ctx.ops;
  };

  app.get("/admin/runners", async () => ({ runners: (await ops().runners()).map(runnerView) }));

  app.get("/admin/status/history", { schema: { querystring: z.object({ minutes: decimal(1, MAX_THROUGHPUT_MINUTES).default(60) }) } }, async (request) => ({
    samples: await ops().statusHistory(request.query.minutes),
  }));

  app.get("/admin/flights", { schema: { querystring: flightSearchQuery } }, async (request) => ({
    flights: (await ops().searchFlights({ text: request.query.q, limit: request.query.limit })).map(flightToPayload),
  }));

  // Before any search: the flights changed last (by the message that made their current version).
  app.get("/admin/flights/recent", { schema: { querystring: z.object({ limit: decimal(1, MAX_FLIGHT_SEARCH_LIMIT).default(20) }) } }, async (request) => ({
    flights: (await ops().recentFlights(request.query.limit)).map(flightToPayload),
  }));

  app.get("/admin/task-events", { schema: { querystring: taskEventsQuery } }, async (request) => {
    if (!ctx.tasks) throw notEnabled("task service", "tasks.enabled");
    const { status, after, limit } = request.query;
    const only = status === DEAD ? { dead: true } : status === OVERDUE ? { overdue: true } : status ? { status } : {};
    return ctx.tasks.list({ ...only, ...(after ? { after } : {}), size: limit });
  });

  app.post("/admin/task-events/replay", { schema: { body: taskReplayBody } }, async (request) => {
    if (!ctx.tasks) throw notEnabled("task service", "tasks.enabled");
    return replayTasks(ctx.tasks, request.body, "admin-http");
  });

  app.get("/admin/reliable-messages/queues", async () => {
    if (!ctx.rm) throw notEnabled("reliable-message service", "reliable.enabled");
    const queues = await ctx.reliable.queues();
    return {
      queues: queues.map(({ queue, phases }) => ({ queue, waiting: phases.WAITING_CONFIRM + phases.SENDING, review: phases.REVIEW, dead: phases.DEAD, phases })),
    };
  });

  app.post("/admin/reliable-messages/queues/:queue/replay-dead", { schema: { params: z.object({ queue: routeQueue }) } }, async (request) => {
    if (!ctx.rm) throw notEnabled("reliable-message service", "reliable.enabled");
    return ctx.rm.replayDead(request.params.queue);
  });
}
