import { ErrorClass, FLID_PATTERN, flightToPayload, isReplayConflict, MAX_FLIGHT_LIST_LIMIT, parseVersionKey } from "@msgx/core";
import { z } from "zod";
import { requireBearer } from "./bearer-token.js";
import type { HttpContext } from "./http-context.js";
import { HttpError, RELIABLE_ERROR_STATUSES, TASK_ERROR_STATUSES } from "./http-error.js";
import { registerCompareRoutes } from "./compare-routes.js";
import { registerConsoleDataRoutes } from "./console-data-routes.js";
import { acceptJsonBodies } from "./json-body.js";
import type { HttpApp } from "./http-app.js";
import { registerLineageRoutes } from "./lineage-routes.js";
import { registerReliableRoutes } from "./reliable-routes.js";
import { registerTaskLineageRoutes } from "./task-lineage-routes.js";
import { registerRequestRoutes } from "./request-routes.js";
import { documentScope } from "./route-docs.js";
import { decimal } from "./zod-validation.js";

export const ADMIN_BODY_BYTES = 64 * 1024;

const replayBody = z
  .object({
    errorClasses: z.array(z.enum(ErrorClass)).optional(),
    msgIds: z.array(z.number().int().min(0)).optional(),
    dryRun: z.boolean().optional(),
    // Absent: the CLI's default name; given, it must name someone (the console always sends one).
    operator: z.string().trim().min(1, "must name the operator").max(200).optional(),
    /** The dry run's `expect`, sent back to guard the apply (a version or null per key). */
    expect: z
      .record(z.string(), z.number().int().min(0).nullable())
      .refine((m) => Object.keys(m).every((k) => parseVersionKey(k) !== undefined), "keys are flight:<FLID> or reference:<RTYPE>:<RKEY>")
      .optional(),
  })
  .optional();

const MAX_AUDIT_LIMIT = 1000;
/** The most ids a dead-letter group lists (`/admin/dead-letters/groups?ids=`): a group replay of more goes by class. */
const MAX_GROUP_IDS = 1000;

/**
 * `/admin/*` behind the bearer token: status, messages (their raw text too), flights, dead letters, the snapshot log, the audit trail,
 * replay, reliable messages, and upstream requests and reference data when configured. A body
 * is JSON of any declared type (UTF-8, at most 64 KiB); an empty body is `{}`.
 */
export function registerAdminRoutes(app: HttpApp, ctx: HttpContext): void {
  requireBearer(app, ctx.token);
  documentScope(app, { errors: [...RELIABLE_ERROR_STATUSES, ...TASK_ERROR_STATUSES] });
  acceptJsonBodies(app, ADMIN_BODY_BYTES);

  app.get("/admin/status", async () => ctx.status());

  app.get("/admin/messages/:msgId", { schema: { params: z.object({ msgId: decimal(0) }) } }, async (request, reply) => {
    const r = await ctx.message(request.params.msgId);
    return r ?? reply.code(404).send({ error: "not found", message: "no such message" });
  });

  app.get("/admin/flights/:flid", { schema: { params: z.object({ flid: z.string().regex(FLID_PATTERN, "a FLID is a decimal id") }) } }, async (request, reply) => {
    // The published shape (the flight event's value, docs/events.md), as `/all/flights` and `msgx flights show`.
    const f = await ctx.flight(request.params.flid);
    return f ? flightToPayload(f) : reply.code(404).send({ error: "not found", message: "no such flight" });
  });

  app.get(
    "/admin/dead-letters",
    {
      schema: {
        querystring: z.object({ after: decimal(0).optional(), limit: decimal(1, MAX_FLIGHT_LIST_LIMIT).default(100), errorClass: z.enum(ErrorClass).optional() }),
      },
    },
    async (request) => {
      const { after, limit, errorClass } = request.query;
      return ctx.deadLetters({ limit, ...(after !== undefined ? { afterMsgId: after } : {}), ...(errorClass !== undefined ? { errorClass } : {}) });
    },
  );

  // By class, then the biggest groups first; each group's first ids are what a group replay sends.
  app.get("/admin/dead-letters/groups", { schema: { querystring: z.object({ ids: decimal(1, MAX_GROUP_IDS).default(MAX_GROUP_IDS) }) } }, async (request) => ({
    groups: await ctx.deadLetterGroups(request.query.ids),
  }));

  app.get("/admin/messages/:msgId/raw", { schema: { params: z.object({ msgId: decimal(0) }) } }, async (request, reply) => {
    const raw = await ctx.rawMessage(request.params.msgId);
    return raw ?? reply.code(404).send({ error: "not found", message: "no such mailbox row" });
  });

  // Newest first; `after` is the `auditId` of the last entry of the previous page (its `next`).
  app.get(
    "/admin/audit",
    { schema: { querystring: z.object({ limit: decimal(1, MAX_AUDIT_LIMIT).default(50), after: decimal(1).optional() }) } },
    async (request) => {
      const { limit, after } = request.query;
      const entries = await ctx.audits({ limit, ...(after !== undefined ? { beforeAuditId: after } : {}) });
      return { entries, next: entries.length === limit ? entries.at(-1)!.auditId : null };
    },
  );

  app.get("/admin/snapshots", { schema: { querystring: z.object({ limit: decimal(1, 1000).default(100) }) } }, async (request) => ctx.snapshotLog(request.query.limit));

  app.post("/admin/replay", { schema: { body: replayBody } }, async (request, reply) => {
    const { errorClasses, msgIds, dryRun, operator, expect } = request.body ?? {};
    if (!errorClasses && !msgIds) throw new HttpError(400, "give errorClasses and/or msgIds");
    const selection = { ...(errorClasses ? { errorClasses } : {}), ...(msgIds ? { msgIds } : {}) };
    if (dryRun === true) {
      const { preview, expect: guard } = await ctx.replayPreview(selection);
      return { dryRun: true, preview, expect: guard };
    }
    try {
      return await ctx.replay(selection, operator ?? "admin-http", expect !== undefined ? { expect } : {});
    } catch (e) {
      if (!isReplayConflict(e)) throw e;
      ctx.logger.warn("replay refused: versions moved since the preview", { operator: operator ?? "admin-http", mismatches: e.mismatches });
      return reply.code(409).send({ error: "conflict", message: e.message, mismatches: e.mismatches });
    }
  });

  registerLineageRoutes(app, ctx.lineage);
  registerReliableRoutes(app, ctx.reliable);
  if (ctx.tasks) registerTaskLineageRoutes(app, ctx.tasks);
  registerConsoleDataRoutes(app, ctx);
  registerCompareRoutes(app, ctx);
  if (ctx.requests) registerRequestRoutes(app, ctx.requests);
}
