import { ReliableMessageStatus } from "@msgx/reliable";
import { z } from "zod";
import type { ReliableAdminApi } from "../reliable/reliable-admin.js";
import type { HttpApp } from "./http-app.js";
import { lineageQuery, pageQuery } from "./lineage-routes.js";
import { decimal, routeQueue, routeText } from "./zod-validation.js";
import { subscriptionQuery } from "./rm-routes.js";

/** Pages are by number here: past a million pages of 500 is a mistake, not a page. */
const MAX_PAGE = 1_000_000;

const listQuery = z.object({
  queue: routeQueue.optional(),
  status: z.enum(ReliableMessageStatus).optional(),
  dead: z.enum(["true", "false"]).optional(),
  page: decimal(1, MAX_PAGE).default(1),
  size: decimal(1, 500).default(20),
});
const idParams = z.object({ id: routeText(128) });

/**
 * `/admin/reliable-messages…` (behind the admin token): list, show, the lineage (a page of its state
 * changes with their causes, newest first, `?limit=&before=` as the flight lineage; 404 for an unknown message), resend, mark dead, delete
 * (audited), resend the dead messages of a queue.
 */
export function registerReliableRoutes(app: HttpApp, api: ReliableAdminApi): void {
  app.get("/admin/reliable-messages", { schema: { querystring: listQuery } }, async (request) => {
    const { queue, status, dead, page, size } = request.query;
    const filter = { ...(queue ? { consumerQueue: queue } : {}), ...(status ? { status } : {}), ...(dead ? { dead: dead === "true" } : {}) };
    return api.list(filter, page, size);
  });
  app.post(
    "/admin/reliable-messages/resend-dead",
    { schema: { querystring: z.object({ queue: z.string({ error: "queue is required" }).min(1, "queue is required").pipe(routeQueue), size: decimal(1, 5_000).default(100) }) } },
    async (request) => api.resendDead(request.query.queue, request.query.size),
  );
  app.get("/admin/reliable-messages/:id", { schema: { params: idParams } }, async (request, reply) => {
    const m = await api.get(request.params.id);
    return m ?? reply.code(404).send({ error: "not found", message: "no such message" });
  });
  app.get("/admin/reliable-messages/:id/lineage", { schema: { params: idParams, querystring: pageQuery } }, async (request, reply) => {
    const lineage = await api.lineage(request.params.id, lineageQuery(request.query));
    return lineage ?? reply.code(404).send({ error: "not found", code: "NOT_FOUND", message: `no message ${request.params.id}` });
  });
  app.delete(
    "/admin/reliable-messages/:id",
    { schema: { params: idParams, querystring: z.object({ operator: routeText(100).default("http") }) } },
    async (request, reply) => {
      const { deleted } = await api.delete(request.params.id, request.query.operator);
      return deleted ? { deleted } : reply.code(404).send({ error: "not found", code: "NOT_FOUND", message: `no message ${request.params.id}` });
    },
  );
  app.post("/admin/reliable-messages/:id/resend", { schema: { params: idParams, querystring: subscriptionQuery } }, async (request) => api.resend(request.params.id, request.query.subscription));
  app.post("/admin/reliable-messages/:id/mark-dead", { schema: { params: idParams, querystring: subscriptionQuery } }, async (request) => api.markDead(request.params.id, request.query.subscription));
}
