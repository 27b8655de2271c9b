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
 * Only requests that can change a message or a task run inside it (see {@link bindRequestCaller}).
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

/**
 * Runs the handlers of `app` that can change a message or a task inside their request's caller.
 * A read (GET, HEAD) and the routes in `outside` (the ingress: its mailbox row keeps no caller) run
 * outside it: on Node 20 the first `run` of an AsyncLocalStorage turns on async hooks for the whole
 * process, a cost every promise of the pipeline pays from then on, so the busiest route must not be
 * the one to start it.
 */
export function bindRequestCaller(app: HttpApp, outside: readonly string[]): void {
  const skipped = new Set(outside);
  app.addHook("preHandler", (request, _reply, done) => {
    if (request.method === "GET" || request.method === "HEAD" || skipped.has(request.routeOptions.url ?? "")) return done();
    calls.run(callerOf(request), done);
  });
}
