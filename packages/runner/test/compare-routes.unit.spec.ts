/**
 * `/admin/compare` (docs/operations.md "Going live: shadow run and comparison") through fastify's
 * inject: the runner compares its own flights with another system's `/all/flights`, served here
 * by a local HTTP server. Only the configured targets, behind the admin token, never following a
 * redirect; every refusal a 4xx, the other side failing a 502 — never a 500.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { flightToPayload, type FlightState, type Logger } from "@msgx/core";
import { RecordingLogger } from "@msgx/core/testing";
import { afterAll, describe, expect, it } from "vitest";
import { createCompareAdmin } from "../src/compare/compare-admin.js";
import type { HttpApp } from "../src/http/http-app.js";
import type { HttpContext } from "../src/http/http-context.js";
import { createHttpServer } from "../src/http/http-server.js";
import { injectJson, pipelineLessContext } from "./route-spec.js";

const ADMIN_TOKEN = "admin-token-for-operators";
const ADMIN = { authorization: `Bearer ${ADMIN_TOKEN}` };

const flight = (flid: string, estt: string): FlightState => ({
  flid,
  ffid: null,
  operationDay: "20260305",
  stateVersion: 2,
  lastMsgId: 9,
  lastSrcDttm: "20260305070000",
  deleted: false,
  scalars: { ALCD: "CZ", FLNO: `CZ${flid}`, MVIN: "D", SODT: "2026-03-05T08:00", ESTT: estt },
  collections: {},
});
const OURS = [flight("900101", "2026-03-05T08:25"), flight("900102", "2026-03-05T09:00")];

const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

/** A stand-in for the other system: `/all/flights` in one page; `/moved/all/flights` redirects to `/all/flights`. Records every path asked. */
async function otherSystem(flights: readonly FlightState[]): Promise<{ url: string; asked: string[] }> {
  const asked: string[] = [];
  const server: Server = createServer((req, res) => {
    asked.push(req.url ?? "");
    if (req.url?.startsWith("/moved/")) return void res.writeHead(302, { location: req.url.slice("/moved".length) }).end();
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ flights: flights.map(flightToPayload), next: null }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, asked };
}

function runner(against: readonly string[]) {
  const logger = new RecordingLogger();
  const ctx = {
    ...pipelineLessContext(logger as Logger, ADMIN_TOKEN),
    metrics: async () => ({ contentType: "text/plain", body: "" }),
    reliable: undefined as unknown as HttpContext["reliable"],
    compare: createCompareAdmin({ against, timeoutMs: 5_000 }, async (q) => OURS.filter((f) => q.afterFlid === undefined || BigInt(f.flid) > BigInt(q.afterFlid)).slice(0, q.limit)),
  } satisfies HttpContext;
  const app: HttpApp = createHttpServer(ctx);
  closers.push(() => app.close());
  return { app, logger };
}

const post = (app: HttpApp, body: unknown, headers = ADMIN) => injectJson(app, "POST", "/admin/compare", body, headers);

describe("/admin/compare", () => {
  it("compares this runner with the configured default and answers the report of msgx compare --json; behind the admin token", async () => {
    const other = await otherSystem([flight("900101", "2026-03-05T08:10"), flight("900102", "2026-03-05T09:00"), flight("900103", "2026-03-05T10:00")]);
    const { app, logger } = runner([other.url, "http://127.0.0.1:9"]);
    expect(await injectJson(app, "GET", "/admin/compare", undefined, ADMIN)).toEqual({ status: 200, body: { against: [other.url, "http://127.0.0.1:9"] } });
    expect((await post(app, {}, {} as typeof ADMIN)).status).toBe(401);
    expect(other.asked).toEqual([]);

    const res = await post(app, { operationDays: ["20260305"] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ours: "this runner", theirs: other.url, operationDays: ["20260305"], agree: false, flights: { ours: 2, theirs: 3, both: 2, differing: 2 } });
    expect(res.body!["differences"]).toEqual([
      { flid: "900101", kind: "field", path: "fields.ESTT", ours: "2026-03-05T08:25", theirs: "2026-03-05T08:10" },
      { flid: "900103", kind: "missing", path: "flight", missingFrom: "ours" },
    ]);
    expect(other.asked).toEqual(["/all/flights?limit=1000&operationDay=20260305"]);
    const ignoring = await post(app, { against: other.url, ignore: ["fields.ESTT"] });
    expect(ignoring.body!["byPath"]).toEqual({ flight: 1 });
    expect(logger.lines.filter((l) => l.msg === "http request failed")).toEqual([]);
  });

  it("reads no URL but the configured ones, and refuses bad days or ignore entries, each with a 400", async () => {
    const other = await otherSystem([]);
    const { app } = runner([other.url]);
    for (const body of [{ against: "http://169.254.169.254" }, { against: `${other.url}/` }, { operationDays: ["2026-03-05"] }, { ignore: ["fields."] }, { extra: 1 }]) {
      const res = await post(app, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    expect(other.asked).toEqual([]);
  });

  it("answers 404 when no target is configured, and 502 when the other side fails or redirects (the redirect is not followed)", async () => {
    const none = runner([]);
    expect(await injectJson(none.app, "GET", "/admin/compare", undefined, ADMIN)).toEqual({ status: 200, body: { against: [] } });
    expect(await post(none.app, {})).toMatchObject({ status: 404, body: { message: expect.stringMatching(/compare\.against/) } });

    const other = await otherSystem([]);
    const { app } = runner([`${other.url}/moved`, "http://127.0.0.1:9"]);
    const moved = await post(app, {});
    expect(moved).toMatchObject({ status: 502, body: { error: "bad gateway" } });
    expect(other.asked).toEqual(["/moved/all/flights?limit=1000"]);
    expect(await post(app, { against: "http://127.0.0.1:9" })).toMatchObject({ status: 502, body: { message: expect.stringMatching(/^GET http:\/\/127\.0\.0\.1:9\/all\/flights/) } });
  });
});
