import { AsyncLocalStorage } from "node:async_hooks";
import type { ApiCaller } from "@msgx/core";
import type { FastifyRequest } from "fastify";
import type { HttpApp } from "./http-app.js";

/**
 * The HTTP call being served, for the histories of reliable messages and tasks: the services ask
 * `currentCaller()` when a change is written (their `causeOf` / `callerOf`), so every route that
 * changes a message or a task names its caller without passing it down by hand. Set from the
 * `preHandler` hook, after the body was read and validated, so the handler and everything it
 * awaits run inside it; a job or a broker input runs outside any request and gets undefined.
 */
const calls = new AsyncLocalStorage<ApiCaller>();

/** The caller of the HTTP request this code runs for, if any. */
export const currentCaller = (): ApiCaller | undefined => calls.getStore();

/** What the runner knows of who made `request` (no accounts: a bearer token per surface). */
export function callerOf(request: FastifyRequest): ApiCaller {
  const agent = request.headers["user-agent"];
  return {
    route: `${request.method} ${request.routeOptions.url ?? request.url.split("?")[0]}`,
    requestId: request.id,
    remoteAddress: request.ip,
    userAgent: typeof agent === "string" ? agent.slice(0, 200) : null,
  };
}

/** Runs every handler of `app` inside its request's caller. */
export function bindRequestCaller(app: HttpApp): void {
  app.addHook("preHandler", (request, _reply, done) => calls.run(callerOf(request), done));
}
