import { ErrorClass, flightToPayload, MAX_FLIGHT_LIST_LIMIT } from "@msgx/core";
import { z } from "zod";
import { bearerGuard } from "./bearer-token.js";
import type { HttpContext } from "./http-context.js";
import { HttpError } from "./http-error.js";
import { acceptJsonBodies } from "./json-body.js";
import type { HttpApp } from "./http-app.js";
import { registerLineageRoutes } from "./lineage-routes.js";
import { registerReliableRoutes } from "./reliable-routes.js";
import { registerRequestRoutes } from "./request-routes.js";
import { decimal } from "./zod-validation.js";

const ADMIN_BODY_BYTES = 64 * 1024;

const replayBody = z
  .object({
    errorClasses: z.array(z.enum(ErrorClass)).optional(),
    msgIds: z.array(z.number().int().min(0)).optional(),
    dryRun: z.boolean().optional(),
    operator: z.string().optional(),
  })
  .optional();

/**
 * `/admin/*` behind the bearer token: status, messages, flights, dead letters, the snapshot log,
 * replay, reliable messages, and upstream requests and reference data when configured. A body
 * is JSON of any declared type (UTF-8, at most 64 KiB); an empty body is `{}`.
 */
export function registerAdminRoutes(app: HttpApp, ctx: HttpContext): void {
  app.addHook("onRequest", bearerGuard(ctx.token));
  acceptJsonBodies(app, ADMIN_BODY_BYTES);

  app.get("/admin/status", async () => ctx.status());

  app.get("/admin/messages/:msgId", { schema: { params: z.object({ msgId: decimal(0) }) } }, async (request, reply) => {
    const r = await ctx.message(request.params.msgId);
    return r ?? reply.code(404).send({ error: "not found", message: "no such message" });
  });

  app.get("/admin/flights/:flid", { schema: { params: z.object({ flid: z.string().min(1) }) } }, async (request, reply) => {
    // The published shape (the flight event's value, docs/events.md), as `/all/flights` and `msgx flights show`.
    const f = await ctx.flight(request.params.flid);
    return f ? flightToPayload(f) : reply.code(404).send({ error: "not found", message: "no such flight" });
  });

  app.get(
    "/admin/dead-letters",
    { schema: { querystring: z.object({ after: decimal(0).optional(), limit: decimal(1, MAX_FLIGHT_LIST_LIMIT).default(100) }) } },
    async (request) => {
      const { after, limit } = request.query;
      return ctx.deadLetters({ limit, ...(after !== undefined ? { afterMsgId: after } : {}) });
    },
  );

  app.get("/admin/snapshots", { schema: { querystring: z.object({ limit: decimal(1, 1000).default(100) }) } }, async (request) => ctx.snapshotLog(request.query.limit));

  app.post("/admin/replay", { schema: { body: replayBody } }, async (request) => {
    const { errorClasses, msgIds, dryRun, operator } = request.body ?? {};
    if (!errorClasses && !msgIds) throw new HttpError(400, "give errorClasses and/or msgIds");
    const selection = { ...(errorClasses ? { errorClasses } : {}), ...(msgIds ? { msgIds } : {}) };
    if (dryRun === true) return { dryRun: true, preview: await ctx.replayPreview(selection) };
    return ctx.replay(selection, operator || "admin-http");
  });

  registerLineageRoutes(app, ctx.lineage);
  registerReliableRoutes(app, ctx.reliable);
  if (ctx.requests) registerRequestRoutes(app, ctx.requests);
}
