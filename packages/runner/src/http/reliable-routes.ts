import { ReliableMessageStatus } from "@msgx/reliable";
import { z } from "zod";
import type { ReliableAdminApi } from "../reliable/reliable-admin.js";
import type { HttpApp } from "./http-app.js";
import { decimal } from "./zod-validation.js";

const listQuery = z.object({
  queue: z.string().min(1).optional(),
  status: z.enum(ReliableMessageStatus).optional(),
  dead: z.enum(["true", "false"]).optional(),
  page: decimal(1).default(1),
  // More than 500 is read as 500: a page is bounded, asking for more is not a mistake.
  size: decimal(1).default(20).transform((n) => Math.min(500, n)),
});
const idParams = z.object({ id: z.string().min(1) });

/**
 * `/admin/reliable-messages…` (behind the admin token): list, show, resend, mark dead, resend the
 * dead messages of a queue.
 */
export function registerReliableRoutes(app: HttpApp, api: ReliableAdminApi): void {
  app.get("/admin/reliable-messages", { schema: { querystring: listQuery } }, async (request) => {
    const { queue, status, dead, page, size } = request.query;
    const filter = { ...(queue ? { consumerQueue: queue } : {}), ...(status ? { status } : {}), ...(dead ? { dead: dead === "true" } : {}) };
    return api.list(filter, page, size);
  });
  app.post(
    "/admin/reliable-messages/resend-dead",
    { schema: { querystring: z.object({ queue: z.string({ error: "queue is required" }).min(1, "queue is required"), size: decimal(1).default(100) }) } },
    async (request) => api.resendDead(request.query.queue, request.query.size),
  );
  app.get("/admin/reliable-messages/:id", { schema: { params: idParams } }, async (request, reply) => {
    const m = await api.get(request.params.id);
    return m ?? reply.code(404).send({ error: "not found", message: "no such message" });
  });
  app.post("/admin/reliable-messages/:id/resend", { schema: { params: idParams } }, async (request) => api.resend(request.params.id));
  app.post("/admin/reliable-messages/:id/mark-dead", { schema: { params: idParams } }, async (request) => api.markDead(request.params.id));
}
