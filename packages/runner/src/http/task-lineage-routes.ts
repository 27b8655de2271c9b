import { z } from "zod";
import type { TaskApi } from "../tasks/task-api.js";
import type { HttpApp } from "./http-app.js";
import { lineageQuery, pageQuery } from "./lineage-routes.js";
import { routeName } from "./zod-validation.js";

/**
 * `GET /admin/tasks/<taskId>/lineage?limit=&before=` (behind the admin token; docs/lineage.md): the
 * task's status now and a page of its changes with their causes and callers, newest first →
 * `{taskId, taskNo, status, entries, next}` (`next` the `before` of the page after it, as the flight lineage).
 * 404 for an unknown task; an id that is not a task id is 400 INVALID (the service's pattern).
 */
export function registerTaskLineageRoutes(app: HttpApp, api: TaskApi): void {
  app.get("/admin/tasks/:taskId/lineage", { schema: { params: z.object({ taskId: routeName(128) }), querystring: pageQuery } }, async (request, reply) => {
    const lineage = await api.lineage(request.params.taskId, lineageQuery(request.query));
    return lineage ?? reply.code(404).send({ error: "not found", code: "NOT_FOUND", message: `no task ${request.params.taskId}` });
  });
}
