/**
 * Every path and query parameter of every route, hostile (issue 31, defect 2): NUL, bytes that are
 * not UTF-8, an overlong value and a traversal, sent to each parameter of each route the HTTP app
 * registers — enumerated from fastify itself (an `onRoute` hook), not from a list that could
 * drift — with every service on (tasks, reliable messages, requests), on the embedded profile
 * (PGlite) and on real PostgreSQL, whose refusal of NUL was the 500. Every answer is a 4xx, never
 * a 5xx; a 404 only from a handler's lookup, never "no route"; a 400 names the parameter. A schema
 * and data directories of the file's own.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "@msgx/core";
import type { RouteOptions } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createExchange, type Exchange } from "../src/app/create-exchange.js";
import { startServiceHttp, type ServiceHttp } from "../src/app/service-http.js";
import { loadConfig } from "../src/config/load-config.js";
import type { HttpApp } from "../src/http/http-app.js";
import type { HttpContext } from "../src/http/http-context.js";
import { createHttpServer } from "../src/http/http-server.js";
import { pgRunnerWorld } from "./pg-runner-world.js";

const TOKEN = "route-fuzz-token-0123456789";

/** What each parameter is sent, as written in the URL. */
const HOSTILE: Readonly<Record<string, string>> = {
  nul: "%00",
  "nul inside": "a%00b",
  "invalid UTF-8": "%FF%FE",
  "control character": "a%0Ab",
  overlong: "a".repeat(10_000),
  traversal: "..%2F..%2F",
};
/** A value every parameter takes (a decimal id, a queue name, a key): the other parameters of the route get it. */
const PLAIN = "1";

interface Route {
  readonly method: string;
  readonly url: string;
  readonly pathParams: readonly string[];
  readonly queryParams: readonly string[];
  /** The query parameters the route cannot do without: sent `PLAIN` while another one is hostile. */
  readonly requiredQuery: readonly string[];
  readonly hasBody: boolean;
}

const world = await pgRunnerWorld("routefuzz", "the route fuzz on PostgreSQL");

/**
 * An exchange with every service on, `overrides` choosing its state, and an app of the test's own
 * over the exchange's live context (its real stores) whose routes an `onRoute` hook lists.
 */
function fuzzedApp(overrides: () => Promise<Record<string, string>>): { app: () => HttpApp; routes: Route[] } {
  const dataDir = mkdtempSync(join(tmpdir(), "msgx-route-fuzz-"));
  let exchange: Exchange | undefined;
  let app: HttpApp | undefined;
  const routes: Route[] = [];

  beforeAll(async () => {
    const config = loadConfig({
      env: {},
      overrides: { dataDir, "http.port": "0", "http.token": TOKEN, "tasks.enabled": "true", "tasks.owners": "LMS", "reliable.enabled": "true", ...(await overrides()) },
    });
    const http = await startServiceHttp(config, silentLogger);
    let live: HttpContext | undefined;
    const capturing: ServiceHttp = { ...http, attach: (ctx) => ((live = ctx), http.attach(ctx)) };
    exchange = await createExchange(config, { logger: silentLogger, http: capturing });
    await exchange.start();
    expect(live?.rm && live.tasks && live.requests && live.ops, "every service is on").toBeTruthy();
    app = createHttpServer(live!);
    app.addHook("onRoute", (r: RouteOptions) => {
      const methods = Array.isArray(r.method) ? r.method : [r.method];
      const schema = r.schema as { querystring?: z.ZodType; body?: z.ZodType } | undefined;
      const shape: Record<string, z.ZodType> = schema?.querystring instanceof z.ZodObject ? (schema.querystring.shape as Record<string, z.ZodType>) : {};
      for (const method of methods) {
        if (method === "HEAD") continue;
        routes.push({
          method,
          url: r.url,
          pathParams: [...r.url.matchAll(/:(\w+)/g)].map((m) => m[1]!),
          queryParams: Object.keys(shape),
          requiredQuery: Object.keys(shape).filter((name) => !shape[name]!.safeParse(undefined).success),
          hasBody: schema?.body !== undefined,
        });
      }
    });
    await app.ready();
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await exchange?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  return { app: () => app!, routes };
}

/** The route's URL with `param` (path or query) set to `value`, every other path parameter and required query parameter to `PLAIN`. */
function urlWith(route: Route, param: string, value: string, where: "path" | "query"): string {
  const path = route.url.replace(/:(\w+)/g, (_, name: string) => (where === "path" && name === param ? value : PLAIN));
  const query = [...route.requiredQuery.filter((name) => where !== "query" || name !== param).map((name) => `${name}=${PLAIN}`), ...(where === "query" ? [`${param}=${value}`] : [])];
  return query.length > 0 ? `${path}?${query.join("&")}` : path;
}

function fuzzSuite(title: string, overrides: () => Promise<Record<string, string>>, skip = false): void {
  describe.skipIf(skip)(`every parameter of every route, hostile: ${title}`, () => {
    const { app, routes } = fuzzedApp(overrides);

    it("lists the routes of every service, with their parameters", () => {
      const listed = routes.map((r) => `${r.method} ${r.url}`);
      for (const expected of [
        "GET /rm/v1/messages/:id",
        "POST /rm/v1/queues/:queue/replay-dead",
        "GET /task/v1/tasks",
        "GET /admin/reliable-messages/:id",
        "GET /admin/reference/:rtype/:rkey/lineage",
        "GET /admin/requests/:requestId",
        "POST /admin/reliable-messages/queues/:queue/replay-dead",
        "GET /all/flights",
      ]) {
        expect(listed).toContain(expected);
      }
      expect(routes.find((r) => r.url === "/task/v1/tasks" && r.method === "GET")?.queryParams).toEqual(expect.arrayContaining(["owner", "after", "size"]));
    });

    it("answers 4xx to NUL, bad UTF-8, control characters, overlong and traversal values in every path and query parameter", async () => {
      const wrong: string[] = [];
      let sent = 0;
      for (const route of routes) {
        const params = [...route.pathParams.map((p) => ["path", p] as const), ...route.queryParams.map((p) => ["query", p] as const)];
        for (const [where, param] of params) {
          for (const [kind, value] of Object.entries(HOSTILE)) {
            const url = urlWith(route, param, value, where);
            const res = await app().inject({
              method: route.method as "GET" | "POST",
              url,
              headers: { authorization: `Bearer ${TOKEN}`, ...(route.method === "POST" ? { "content-type": "application/json" } : {}) },
              ...(route.method === "POST" ? { payload: "{}" } : {}),
            });
            sent += 1;
            const body = res.body === "" ? {} : (JSON.parse(res.body) as { message?: string });
            const message = body.message ?? "";
            const what = `${route.method} ${route.url} ${where} ${param} ${kind}: ${res.statusCode} ${message.slice(0, 160)}`;
            if (res.statusCode < 400 || res.statusCode >= 500) wrong.push(what);
            else if (res.statusCode === 404 && message.startsWith("no route")) wrong.push(what);
            // fastify refuses a path that is not UTF-8 itself; the body ({}) is validated before the
            // query, so a value the parameter takes may still meet a refused body.
            else if (res.statusCode === 400 && !message.startsWith(`${where} ${param}: `) && !message.endsWith("is not a valid url component") && !(route.hasBody && message.startsWith("body"))) wrong.push(what);
          }
        }
      }
      expect(sent).toBeGreaterThan(100);
      expect(wrong).toEqual([]);
    }, 120_000);

    it("refuses the documented bounds: size above 500 on /task/v1/tasks and /admin/reliable-messages", async () => {
      for (const url of ["/task/v1/tasks?size=100000", "/task/v1/tasks?size=501", "/admin/reliable-messages?size=501"]) {
        const res = await app().inject({ method: "GET", url, headers: { authorization: `Bearer ${TOKEN}` } });
        expect(res.statusCode, url).toBe(400);
        expect(res.json().message).toMatch(/^query size: /);
      }
      const res = await app().inject({ method: "GET", url: "/task/v1/tasks?size=500", headers: { authorization: `Bearer ${TOKEN}` } });
      expect(res.statusCode).toBe(200);
    });

    it("names the parameter a NUL is in, in the routes' error shape", async () => {
      const res = await app().inject({ method: "GET", url: "/rm/v1/messages/%00", headers: { authorization: `Bearer ${TOKEN}` } });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ error: "bad request", message: "path id: holds a control character (NUL …) or bytes that are not UTF-8" });
    });
  });
}

fuzzSuite("embedded (PGlite)", async () => ({}));
fuzzSuite(
  "PostgreSQL",
  async () => {
    await world.client.query(`CREATE SCHEMA IF NOT EXISTS ${world.run}`);
    return { "pg.url": world.url, "pg.schema": world.run };
  },
  !world.gate.available,
);
