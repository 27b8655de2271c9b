import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { errorMessage, ErrorClass, flightToPayload, isMsgxError, isRequestInputError, RequestStatus, type ReplaySelection } from "@msgx/core";
import type { HttpContext, RequestAdmin } from "./http-context.js";
import { BodyEncodingError, BodyTooLargeError, bodyText, readBody } from "./read-body.js";
import { reliableRoute } from "./reliable-routes.js";

const XML_TYPES = new Set(["application/xml", "text/xml", "text/plain"]);

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The runner's HTTP surface (node:http): ingress, health, metrics, admin and the legacy read
 * endpoint. Every handler answers; none can take the process down.
 */
export function createHttpServer(ctx: HttpContext): Server {
  return createServer((req, res) => {
    route(ctx, req, res).catch((e: unknown) => {
      const status = e instanceof HttpError || e instanceof BodyEncodingError ? e.status : e instanceof BodyTooLargeError ? 413 : isMsgxError(e) && e.kind === "DEPENDENCY_UNAVAILABLE" ? 503 : 500;
      if (status >= 500) ctx.logger.error("http request failed", { method: req.method, url: req.url, error: errorMessage(e) });
      if (status === 503) res.setHeader("retry-after", "5");
      send(res, status, "text/plain; charset=utf-8", `${errorMessage(e)}\n`);
    });
  });
}

async function route(ctx: HttpContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", "http://msgx");
  const path = url.pathname;
  const method = req.method ?? "GET";

  if (method === "POST" && path === "/cminmsgs/send") {
    authorize(ctx, req);
    const type = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
    if (!XML_TYPES.has(type)) throw new HttpError(415, `content type must be application/xml, text/xml or text/plain, not '${type || "none"}'`);
    const body = bodyText(await readBody(req, ctx.maxBodyBytes), req.headers["content-type"]);
    if (body.trim() === "") throw new HttpError(400, "empty body");
    // A repeated header arrives joined with commas: invalid, so ignored (W3C Trace Context).
    const traceparent = req.headers.traceparent;
    const id = await ctx.receive(body, typeof traceparent === "string" ? traceparent : undefined);
    return send(res, 200, "text/plain; charset=utf-8", String(id));
  }
  if (method === "GET" && path === "/healthz") return send(res, 200, "text/plain; charset=utf-8", "ok\n");
  if (method === "GET" && path === "/readyz") {
    const results = await Promise.all(
      ctx.checks.map(async (c) => {
        try {
          await c.check();
          return { name: c.name, ok: true as const };
        } catch (e) {
          return { name: c.name, ok: false as const, error: errorMessage(e) };
        }
      }),
    );
    return json(res, results.every((r) => r.ok) ? 200 : 503, { ready: results.every((r) => r.ok), checks: results });
  }
  if (method === "GET" && path === "/metrics") {
    const m = await ctx.metrics();
    return send(res, 200, m.contentType, m.body);
  }
  if (method === "GET" && path === "/all/flights") {
    const limit = intParam(url, "limit", 100, 1, 1000);
    const operationDay = url.searchParams.get("operationDay") ?? undefined;
    if (operationDay !== undefined && !/^\d{8}$/.test(operationDay)) throw new HttpError(400, "operationDay must be yyyyMMdd");
    const afterFlid = url.searchParams.get("afterFlid") ?? undefined;
    const flights = await ctx.flights({ limit, ...(operationDay ? { operationDay } : {}), ...(afterFlid ? { afterFlid } : {}) });
    return json(res, 200, {
      flights: flights.map(flightToPayload),
      next: flights.length === limit ? flights.at(-1)!.flid : null,
    });
  }
  if (path.startsWith("/admin/")) return admin(ctx, req, res, url, method);
  throw new HttpError(404, `no route ${method} ${path}`);
}

async function admin(ctx: HttpContext, req: IncomingMessage, res: ServerResponse, url: URL, method: string): Promise<void> {
  authorize(ctx, req);
  if (await reliableRoute(ctx.reliable, req, res, url, method)) return;
  const parts = url.pathname.split("/").filter(Boolean);
  if (method === "GET" && parts[1] === "status") return json(res, 200, await ctx.status());
  if (method === "GET" && parts[1] === "messages" && parts[2]) {
    const r = await ctx.message(intPath(parts[2]));
    return r ? json(res, 200, r) : json(res, 404, { error: "no such message" });
  }
  if (method === "GET" && parts[1] === "flights" && parts[2]) {
    const f = await ctx.flight(decodeURIComponent(parts[2]));
    return f ? json(res, 200, f) : json(res, 404, { error: "no such flight" });
  }
  if (method === "GET" && parts[1] === "dead-letters") {
    const after = url.searchParams.get("after");
    const limit = intParam(url, "limit", 100, 1, 1000);
    return json(res, 200, await ctx.deadLetters({ limit, ...(after ? { afterMsgId: intPath(after) } : {}) }));
  }
  if (method === "GET" && parts[1] === "snapshots") {
    return json(res, 200, await ctx.snapshotLog(intParam(url, "limit", 100, 1, 1000)));
  }
  if (method === "POST" && parts[1] === "replay") {
    const body = JSON.parse(bodyText(await readBody(req, 64 * 1024), req.headers["content-type"]) || "{}") as { errorClasses?: unknown; msgIds?: unknown; dryRun?: unknown; operator?: unknown };
    const selection = replaySelection(body);
    if (body.dryRun === true) return json(res, 200, { dryRun: true, preview: await ctx.replayPreview(selection) });
    const operator = typeof body.operator === "string" && body.operator ? body.operator : "admin-http";
    return json(res, 200, await ctx.replay(selection, operator));
  }
  if ((parts[1] === "requests" || parts[1] === "reference") && ctx.requests) {
    try {
      return await requestRoutes(ctx.requests, req, res, url, method, parts);
    } catch (e) {
      if (isRequestInputError(e)) throw new HttpError(400, e.message);
      if (isMsgxError(e) && e.kind === "CONFIG") throw new HttpError(409, e.message);
      throw e;
    }
  }
  throw new HttpError(404, `no admin route ${method} ${url.pathname}`);
}

/**
 * `/admin/requests` (ask upstream, list, show) and `/admin/reference` (REF_MASTER), docs/requests.md:
 * - `POST /admin/requests/schedule` `{from, to, operator?}` and `POST /admin/requests/ref` `{rtype, operator?}`
 *   register a request and send it at once; the answer is the request as it then stands.
 * - `GET /admin/requests?status=&type=&before=&limit=` newest first; `GET /admin/requests/<id>`.
 * - `GET /admin/reference` (types), `GET /admin/reference/<RTYPE>?after=&limit=&deleted=1`, `GET /admin/reference/<RTYPE>/<RKEY>`.
 */
async function requestRoutes(api: RequestAdmin, req: IncomingMessage, res: ServerResponse, url: URL, method: string, parts: readonly string[]): Promise<void> {
  const [, area, a, b] = parts.map((p) => {
    try {
      return decodeURIComponent(p);
    } catch {
      throw new HttpError(400, `bad path segment: ${p}`);
    }
  });
  if (area === "requests" && method === "POST" && (a === "schedule" || a === "ref")) {
    const body = JSON.parse(bodyText(await readBody(req, 64 * 1024), req.headers["content-type"]) || "{}") as Record<string, unknown>;
    const operator = typeof body["operator"] === "string" && body["operator"] ? body["operator"] : "admin-http";
    const text = (name: string) => {
      const v = body[name];
      if (typeof v !== "string" || v === "") throw new HttpError(400, `give ${name}`);
      return v;
    };
    return json(res, 200, a === "schedule" ? await api.schedule(text("from"), text("to"), operator) : await api.reference(text("rtype"), operator));
  }
  if (area === "requests" && method === "GET" && a === undefined) {
    const status = url.searchParams.get("status") ?? undefined;
    if (status !== undefined && !Object.values<string>(RequestStatus).includes(status)) throw new HttpError(400, `status must be one of ${Object.values(RequestStatus).join(", ")}`);
    const before = url.searchParams.get("before") ?? undefined;
    if (before !== undefined && !/^\d+$/.test(before)) throw new HttpError(400, `not an id: ${before}`);
    const type = url.searchParams.get("type") ?? undefined;
    const limit = intParam(url, "limit", 50, 1, 1000);
    return json(res, 200, await api.list({ limit, ...(status ? { statuses: [status as RequestStatus] } : {}), ...(type ? { requestType: type } : {}), ...(before ? { beforeId: before } : {}) }));
  }
  if (area === "requests" && method === "GET" && a !== undefined && b === undefined) {
    const r = await api.get(a);
    return r ? json(res, 200, r) : json(res, 404, { error: "no such request" });
  }
  if (area === "reference" && method === "GET" && a === undefined) return json(res, 200, await api.referenceTypes());
  if (area === "reference" && method === "GET" && a !== undefined && b === undefined) {
    const limit = intParam(url, "limit", 100, 1, 1000);
    const after = url.searchParams.get("after") ?? undefined;
    const entries = await api.referenceList({ rtype: a, limit, ...(after !== undefined ? { afterKey: after } : {}), includeDeleted: url.searchParams.get("deleted") === "1" });
    return json(res, 200, { entries, next: entries.length === limit ? entries.at(-1)!.rkey : null });
  }
  if (area === "reference" && method === "GET" && a !== undefined && b !== undefined) {
    const e = await api.referenceGet(a, b);
    return e ? json(res, 200, e) : json(res, 404, { error: "no such reference row" });
  }
  throw new HttpError(404, `no admin route ${method} ${url.pathname}`);
}

function replaySelection(body: { errorClasses?: unknown; msgIds?: unknown }): ReplaySelection {
  const classes = Array.isArray(body.errorClasses) ? body.errorClasses : undefined;
  const ids = Array.isArray(body.msgIds) ? body.msgIds : undefined;
  if (!classes && !ids) throw new HttpError(400, "give errorClasses and/or msgIds");
  const known = new Set<string>(Object.values(ErrorClass));
  if (classes?.some((c) => typeof c !== "string" || !known.has(c))) throw new HttpError(400, `errorClasses must be among ${[...known].join(", ")}`);
  if (ids?.some((i) => !Number.isSafeInteger(i))) throw new HttpError(400, "msgIds must be integers");
  return { ...(classes ? { errorClasses: classes as ErrorClass[] } : {}), ...(ids ? { msgIds: ids as number[] } : {}) };
}

function authorize(ctx: HttpContext, req: IncomingMessage): void {
  if (ctx.token === undefined) return;
  if (req.headers.authorization !== `Bearer ${ctx.token}`) throw new HttpError(401, "missing or wrong bearer token");
}

function intParam(url: URL, name: string, dflt: number, min: number, max: number): number {
  const raw = url.searchParams.get(name);
  if (raw === null) return dflt;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new HttpError(400, `${name} must be an integer in [${min}, ${max}]`);
  return n;
}

function intPath(raw: string): number {
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 0) throw new HttpError(400, `not an id: ${raw}`);
  return n;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  send(res, status, "application/json; charset=utf-8", JSON.stringify(body));
}

function send(res: ServerResponse, status: number, contentType: string, body: string): void {
  if (res.headersSent) return void res.end();
  res.writeHead(status, { "content-type": contentType, "content-length": Buffer.byteLength(body) });
  res.end(body);
}
