import { randomUUID } from "node:crypto";
import { errorMessage } from "@msgx/core";
import fastify, { type FastifyError, type FastifyReply, type FastifyRequest, type FastifyServerFactory } from "fastify";
import { registerAdminRoutes } from "./admin-routes.js";
import { registerConsoleRoutes } from "./console-routes.js";
import type { HttpApp } from "./http-app.js";
import type { HttpContext } from "./http-context.js";
import { errorAnswer, HttpError } from "./http-error.js";
import { INGRESS_PATH, registerIngressRoute } from "./ingress-route.js";
import { registerOpenApiRoute } from "./openapi-route.js";
import { registerReadRoutes } from "./read-routes.js";
import { bindRequestCaller } from "./request-caller.js";
import { registerRmRoutes } from "./rm-routes.js";
import { registerRootRoute } from "./root-route.js";
import { catalogRoutes } from "./route-docs.js";
import { registerTaskRoutes } from "./task-routes.js";
import { RUNNER_VERSION } from "../version.js";
import { zodValidatorCompiler, type ZodTypeProvider } from "./zod-validation.js";

/** How long a client may take; a stalled client is disconnected, never waited for. */
export interface HttpTimeouts {
  /** From connection to the end of the request headers (slowloris). */
  readonly headersTimeoutMs: number;
  /** From connection to the end of the request body (a stalled upload). */
  readonly requestTimeoutMs: number;
  /** A socket with no traffic at all. */
  readonly idleTimeoutMs: number;
  /** An idle keep-alive connection between requests; above the usual 60 s of load balancers. */
  readonly keepAliveTimeoutMs: number;
}

export const DEFAULT_HTTP_TIMEOUTS: HttpTimeouts = { headersTimeoutMs: 10_000, requestTimeoutMs: 60_000, idleTimeoutMs: 30_000, keepAliveTimeoutMs: 72_000 };

const REQUEST_ID = /^[\w.:@/+=-]{1,128}$/;
const PROBES = new Set(["/healthz", "/readyz", "/metrics"]);

/**
 * The runner's HTTP surface on fastify: ingress, health, metrics, admin, the operations console
 * `/console`, the reliable-message API `/rm/v1`, the task service `/task/v1` and the legacy read endpoint (routes in docs/operations.md), and
 * their OpenAPI document `/openapi.json`. Every route validates its path, query and body with a
 * zod schema; a client's mistake is a 4xx and ours a 5xx, both `{ error, message }` in JSON.
 * Each request has an id (`x-request-id` as sent when it is a plain token, else a new UUID),
 * echoed in the answer and in its one access-log line. Listen with `app.listen` or on `app.server`
 * after `await app.ready()`. `files.consoleDir` is where the built console is (default: the package's).
 */
export function createHttpServer(ctx: HttpContext, timeouts: HttpTimeouts = DEFAULT_HTTP_TIMEOUTS, files: { readonly consoleDir?: string } = {}): HttpApp {
  const app = createBaseApp(ctx, timeouts);
  registerOpenApiRoute(app, catalogRoutes(app), RUNNER_VERSION);
  void app.register(async (scope) => registerReadRoutes(scope.withTypeProvider<ZodTypeProvider>(), ctx));
  registerRootRoute(app, files.consoleDir);
  void app.register(async (scope) => registerIngressRoute(scope.withTypeProvider<ZodTypeProvider>(), ctx));
  void app.register(async (scope) => registerAdminRoutes(scope.withTypeProvider<ZodTypeProvider>(), ctx));
  void app.register(async (scope) => registerConsoleRoutes(scope.withTypeProvider<ZodTypeProvider>(), files.consoleDir));
  const rm = ctx.rm;
  if (rm) void app.register(async (scope) => registerRmRoutes(scope.withTypeProvider<ZodTypeProvider>(), rm, ctx.rmToken, ctx.maxBodyBytes));
  const tasks = ctx.tasks;
  if (tasks) void app.register(async (scope) => registerTaskRoutes(scope.withTypeProvider<ZodTypeProvider>(), tasks, ctx.tasksToken, ctx.maxBodyBytes));
  return app;
}

/** What every msgx fastify app needs of its context: the log, the body cap, the metrics hook. */
export type BaseContext = Pick<HttpContext, "logger" | "maxBodyBytes" | "observeRequest">;

/**
 * A fastify app with msgx's request ids, error answers, access log and request metrics, and no
 * route. `serverFactory` gives it a server of the caller's (the ingress thread's, which answers
 * some requests itself and hands the rest to this app).
 */
export function createBaseApp(ctx: BaseContext, timeouts: HttpTimeouts = DEFAULT_HTTP_TIMEOUTS, serverFactory?: FastifyServerFactory): HttpApp {
  const app = fastify({
    logger: false,
    // fastify's own cap; the ingress and admin scopes set theirs on their parsers.
    bodyLimit: ctx.maxBodyBytes,
    connectionTimeout: timeouts.idleTimeoutMs,
    keepAliveTimeout: timeouts.keepAliveTimeoutMs,
    requestTimeout: timeouts.requestTimeoutMs,
    // The timeouts above are enforced by a periodic sweep; its default period is 30 s.
    // node:http refuses a headers timeout longer than the request timeout.
    http: { headersTimeout: Math.min(timeouts.headersTimeoutMs, timeouts.requestTimeoutMs), connectionsCheckingInterval: Math.min(2_000, timeouts.headersTimeoutMs) },
    ...(serverFactory ? { serverFactory } : {}),
    // find-my-way's default (100) answers a longer path parameter 404, as if no route matched: the
    // route's schema refuses it instead (400 naming it); node's header limit bounds the URL.
    // A query is decoded as WHATWG URLs do: bytes that are not UTF-8 become U+FFFD, which the
    // route schemas refuse (fastify's parser kept `%FF` as the literal text "%FF").
    routerOptions: { maxParamLength: 16 * 1024, querystringParser: parseQuery },
    requestIdHeader: false,
    genReqId: (req) => {
      const sent = req.headers["x-request-id"];
      return typeof sent === "string" && REQUEST_ID.test(sent) ? sent : randomUUID();
    },
    frameworkErrors: (error, _request, reply) => void sendError(ctx, reply, error),
  }).withTypeProvider<ZodTypeProvider>() as unknown as HttpApp;
  app.setValidatorCompiler(zodValidatorCompiler);
  app.setErrorHandler((error: FastifyError, _request, reply) => sendError(ctx, reply, error));
  app.setNotFoundHandler((request, reply) => sendError(ctx, reply, new HttpError(404, `no route ${request.method} ${urlPath(request.url)}`)));
  app.addHook("onRequest", async (request, reply) => void reply.header("x-request-id", request.id));
  bindRequestCaller(app, [INGRESS_PATH]);
  app.addHook("onResponse", async (request, reply) => {
    accessLog(ctx, request, reply);
    ctx.observeRequest?.(request.method, request.routeOptions.url ?? "unmatched", reply.statusCode, reply.elapsedTime / 1000);
  });
  return app;
}

/** node:http's settings for `timeouts`, for a server built outside fastify (`serverFactory`): the same limits. */
export function nodeHttpOptions(timeouts: HttpTimeouts): { headersTimeout: number; requestTimeout: number; keepAliveTimeout: number; connectionsCheckingInterval: number } {
  return {
    headersTimeout: Math.min(timeouts.headersTimeoutMs, timeouts.requestTimeoutMs),
    requestTimeout: timeouts.requestTimeoutMs,
    keepAliveTimeout: timeouts.keepAliveTimeoutMs,
    connectionsCheckingInterval: Math.min(2_000, timeouts.headersTimeoutMs),
  };
}

function sendError(ctx: BaseContext, reply: FastifyReply, e: unknown): FastifyReply {
  const { status, body } = errorAnswer(e);
  // A 5xx HttpError is a refusal we chose (the pipeline is not running yet), not a fault.
  if (status >= 500 && !(e instanceof HttpError)) ctx.logger.error("http request failed", { reqId: reply.request.id, method: reply.request.method, path: urlPath(reply.request.url), error: errorMessage(e) });
  if (status === 503) void reply.header("retry-after", "5");
  return reply.code(status).type("application/json; charset=utf-8").send(body);
}

function accessLog(ctx: BaseContext, request: FastifyRequest, reply: FastifyReply): void {
  const path = urlPath(request.url);
  const fields = { reqId: request.id, method: request.method, path, status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 };
  if (PROBES.has(path) && reply.statusCode < 400) ctx.logger.debug("http", fields);
  else ctx.logger.info("http", fields);
}

/** A query string as `{ name: value }`, a repeated name as the list of its values. */
export function parseQuery(query: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
  for (const [name, value] of new URLSearchParams(query)) {
    const before = out[name];
    out[name] = before === undefined ? value : Array.isArray(before) ? [...before, value] : [before, value];
  }
  return out;
}

/** The path without the query: what routes match on, and what logs keep (a query may carry what a log should not). */
export function urlPath(url: string | undefined): string {
  const u = url ?? "/";
  const q = u.indexOf("?");
  return q < 0 ? u : u.slice(0, q);
}
