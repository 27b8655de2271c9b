import { errorMessage, MAX_FLIGHT_LIST_LIMIT } from "@msgx/core";
import { z } from "zod";
import { readinessAnswer } from "../app/readiness.js";
import { allFlightsPage } from "../compare/flight-pages.js";
import type { HttpContext } from "./http-context.js";
import type { HttpApp } from "./http-app.js";
import { decimal, decimalId } from "./zod-validation.js";

/** The open routes: `/healthz`, `/readyz`, `/metrics` and the legacy `GET /all/flights`. */
export function registerReadRoutes(app: HttpApp, ctx: HttpContext): void {
  app.get("/healthz", { config: { openapi: { produces: ["text/plain"] } } }, async (_request, reply) => reply.type("text/plain; charset=utf-8").send("ok\n"));

  app.get("/readyz", async (_request, reply) => {
    const state = ctx.readiness?.() ?? { role: "running" };
    if (state.role !== "running") {
      const { status, body } = readinessAnswer(state, []);
      return reply.code(status).header("retry-after", "5").send(body);
    }
    const checks = await Promise.all(
      ctx.checks.map(async (c) => {
        try {
          await c.check();
          return { name: c.name, ok: true as const };
        } catch (e) {
          return { name: c.name, ok: false as const, error: errorMessage(e) };
        }
      }),
    );
    const { status, body } = readinessAnswer(state, checks);
    return reply.code(status).send(body);
  });

  app.get("/metrics", { config: { openapi: { produces: ["text/plain"] } } }, async (_request, reply) => {
    const m = await ctx.metrics();
    return reply.type(m.contentType).send(m.body);
  });

  app.get(
    "/all/flights",
    {
      schema: {
        querystring: z.object({
          limit: decimal(1, MAX_FLIGHT_LIST_LIMIT).default(100),
          operationDay: z.string().regex(/^\d{8}$/, "operationDay must be yyyyMMdd").optional(),
          afterFlid: decimalId.optional(),
        }),
      },
    },
    async (request) => {
      const { limit, operationDay, afterFlid } = request.query;
      const flights = await ctx.flights({ limit, ...(operationDay ? { operationDay } : {}), ...(afterFlid ? { afterFlid } : {}) });
      return allFlightsPage(flights, limit);
    },
  );
}
