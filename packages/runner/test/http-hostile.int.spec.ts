/**
 * The hostile-input battery at the HTTP layer (issue 19): malformed paths, queries, bodies,
 * encodings and headers, and slow or stalled clients, against the in-process exchange with a
 * token — with the embedded mailbox (one server on the main thread) and with the MariaDB mailbox
 * (the ingress thread, which hands every other route to the main thread). Every case is a 4xx with a JSON `{ error, message }` (no stack trace) or a clean close by
 * the server — never a 5xx, never a connection left open — and `/healthz`, timed every 10 ms
 * throughout, keeps answering under 100 ms but for one answer in fifty (unless the prober itself was
 * not scheduled for that long: then the machine, not the runner, stalled the measurement).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import mysql from "mysql2/promise";
import { createMailboxTables, dropMailboxTables } from "@msgx/adapters-mysql";
import { silentLogger } from "@msgx/core";
import { gateService } from "@msgx/core/testing";
import { createExchange, loadConfig, startServiceHttp, type Exchange } from "@msgx/runner";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { namesOverrides, uniqueUpstreamNames } from "./mysql-names.js";

const TOKEN = "hostile-battery-token-0123";
const AUTH = { authorization: `Bearer ${TOKEN}` };
const HEADERS_TIMEOUT_MS = 600;
const REQUEST_TIMEOUT_MS = 1_200;

const MYSQL_URL = process.env["MSGX_TEST_MYSQL_URL"] ?? "mysql://root@127.0.0.1:3306/test";
const mariadb = await gateService("MariaDB", "the hostile battery against the ingress thread", async () => {
  const c = await mysql.createConnection({ uri: MYSQL_URL, connectTimeout: 3_000 });
  await c.end();
});

let base = "";
let port = 0;

/**
 * The exchange the battery runs against: the embedded mailbox (everything on the main thread), or
 * the MariaDB mailbox, where the ingress thread listens, serves the ingress and hands the rest over
 * (it runs from the built dist: build first).
 */
function againstExchange(mailbox: "embedded" | "mariadb"): void {
  const dataDir = mkdtempSync(join(tmpdir(), "msgx-http-hostile-"));
  const names = uniqueUpstreamNames("hostile");
  let exchange: Exchange | undefined;
  beforeAll(async () => {
    let mysqlOverrides: Record<string, string> = {};
    if (mailbox === "mariadb") {
      const pool = mysql.createPool({ uri: MYSQL_URL, connectionLimit: 1 });
      await createMailboxTables(pool as never, names);
      await pool.end();
      mysqlOverrides = { "mysql.url": MYSQL_URL, "http.ingressThread": "on", ...namesOverrides(names) };
    }
    const config = loadConfig({
      env: {},
      overrides: {
        dataDir,
        "http.port": "0",
        "http.token": TOKEN,
        "http.maxBodyBytes": "2048",
        "http.headersTimeoutMs": String(HEADERS_TIMEOUT_MS),
        "http.requestTimeoutMs": String(REQUEST_TIMEOUT_MS),
        ...mysqlOverrides,
      },
    });
    const http = await startServiceHttp(config, silentLogger);
    if (mailbox === "mariadb") expect(http.ingressThread, "the ingress thread runs from the built dist: build the runner first").toBeDefined();
    exchange = await createExchange(config, { logger: silentLogger, http });
    base = await exchange.start();
    port = Number(new URL(base).port);
  }, 60_000);
  afterAll(async () => {
    await exchange?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    if (mailbox === "mariadb") {
      const pool = mysql.createPool({ uri: MYSQL_URL, connectionLimit: 1 });
      await dropMailboxTables(pool as never, names);
      await pool.end();
    }
  }, 60_000);
}

interface Answer {
  readonly status: number;
  readonly body: string;
  readonly headers: Record<string, string | string[] | undefined>;
}

/** One request through node:http, the path sent as written (no URL normalisation). */
function send(method: string, path: string, options: { headers?: Record<string, string>; body?: Buffer | string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method, path, headers: options.headers ?? {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8"), headers: res.headers }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(options.body);
  });
}

/**
 * Writes `chunks` on a raw socket (pausing `pauseMs` after each), then waits: resolves with the
 * status of the answer the server wrote (0 for none) once the server closed, and how long after
 * the first byte that was.
 */
function rawExchange(chunks: readonly (string | Buffer)[], pauseMs = 0, giveUpMs = 10_000): Promise<{ status: number; closedAfterMs: number; closedByServer: boolean }> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    const started = performance.now();
    let received = "";
    const giveUp = setTimeout(() => {
      socket.destroy();
      resolve({ status: statusOf(received), closedAfterMs: performance.now() - started, closedByServer: false });
    }, giveUpMs);
    socket.on("data", (d) => (received += d.toString("latin1")));
    socket.on("error", () => undefined);
    socket.on("close", () => {
      clearTimeout(giveUp);
      resolve({ status: statusOf(received), closedAfterMs: performance.now() - started, closedByServer: true });
    });
    socket.on("connect", async () => {
      for (const c of chunks) {
        if (socket.destroyed) return;
        socket.write(c);
        if (pauseMs > 0) await new Promise((r) => setTimeout(r, pauseMs));
      }
    });
  });
}
const statusOf = (text: string) => Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? 0);

function expectClientError(name: string, answer: Answer, status?: number): void {
  expect(answer.status, `${name}: ${answer.status} ${answer.body}`).toBeGreaterThanOrEqual(400);
  expect(answer.status, `${name}: ${answer.status} ${answer.body}`).toBeLessThan(500);
  if (status !== undefined) expect(answer.status, `${name}: ${answer.body}`).toBe(status);
  const body = JSON.parse(answer.body) as { error?: unknown; message?: unknown };
  expect(typeof body.error, name).toBe("string");
  expect(typeof body.message, name).toBe("string");
  expect(answer.body, name).not.toMatch(/\n\s+at |node_modules|\.ts:\d+/);
}

/** Times `GET /healthz` every 10 ms until stopped; the prober's own event-loop delay is recorded too. */
function healthProbe() {
  const samples: number[] = [];
  const own = monitorEventLoopDelay({ resolution: 5 });
  own.enable();
  let running = true;
  let failures = 0;
  const done = (async () => {
    while (running) {
      const t = performance.now();
      try {
        const res = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(5_000) });
        if ((await res.text()) !== "ok\n") failures += 1;
        samples.push(performance.now() - t);
      } catch {
        failures += 1;
      }
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  return async () => {
    running = false;
    await done;
    own.disable();
    const sorted = [...samples].sort((a, b) => a - b);
    return { count: samples.length, failures, p50: sorted[Math.floor(sorted.length / 2)] ?? 0, max: sorted.at(-1) ?? 0, over100: samples.filter((s) => s > 100).length, proberMaxDelayMs: own.max / 1e6 };
  };
}

const xml = (body: string | Buffer, contentType = "application/xml") => ({ headers: { ...AUTH, "content-type": contentType }, body });
const json = (body: string) => ({ headers: { ...AUTH, "content-type": "application/json" }, body });

describe.each([
  { mailbox: "embedded" as const, where: "everything on the main thread", skip: false },
  { mailbox: "mariadb" as const, where: "the ingress thread, the rest handed to the main thread", skip: !mariadb.available },
])("the HTTP layer under hostile input (in-process exchange, token set; $mailbox mailbox: $where)", ({ mailbox, skip }) => {
  if (skip) return;
  againstExchange(mailbox);
  it("answers every malformed path, query, body and encoding with a 4xx and a JSON error, keeps /healthz under 100 ms, closes stalled clients", async () => {
    // The first fetch of a process loads its HTTP client: not a measurement of the server.
    await (await fetch(`${base}/healthz`)).text();
    const stopProbe = healthProbe();
    const cases: [name: string, method: string, path: string, options?: Parameters<typeof send>[2], status?: number][] = [
      // Paths
      ["bad percent-encoding in a flight id", "GET", "/admin/flights/%E0%A4%A", { headers: AUTH }, 400],
      ["an exponent as a message id", "GET", "/admin/messages/1e3", { headers: AUTH }, 400],
      ["a hex message id", "GET", "/admin/messages/0x10", { headers: AUTH }, 400],
      ["a negative message id", "GET", "/admin/messages/-1", { headers: AUTH }, 400],
      ["a message id past 2^53", "GET", "/admin/messages/99999999999999999999", { headers: AUTH }, 400],
      ["bad percent-encoding in a reliable id", "GET", "/admin/reliable-messages/%ZZ", { headers: AUTH }, 400],
      ["an unknown route", "GET", "/nope", {}, 404],
      ["a wrong method", "DELETE", "/admin/status", { headers: AUTH }, 404],
      // Queries
      ["afterFlid not decimal", "GET", "/all/flights?afterFlid=abc", {}, 400],
      ["limit 0", "GET", "/all/flights?limit=0", {}, 400],
      ["limit as an exponent", "GET", "/all/flights?limit=1e2", {}, 400],
      ["limit given twice", "GET", "/all/flights?limit=1&limit=2", {}, 400],
      ["operationDay not yyyyMMdd", "GET", "/all/flights?operationDay=2026-03-05", {}, 400],
      ["bad percent-encoding in a query", "GET", "/all/flights?afterFlid=%E0%A4%A", {}, 400],
      ["reliable page -1", "GET", "/admin/reliable-messages?page=-1", { headers: AUTH }, 400],
      ["reliable size not a number", "GET", "/admin/reliable-messages?size=x", { headers: AUTH }, 400],
      ["reliable status unknown", "GET", "/admin/reliable-messages?status=NOPE", { headers: AUTH }, 400],
      ["resend-dead without a queue", "POST", "/admin/reliable-messages/resend-dead", { headers: AUTH }, 400],
      ["dead-letters after a fraction", "GET", "/admin/dead-letters?after=1.5", { headers: AUTH }, 400],
      ["snapshots limit over the maximum", "GET", "/admin/snapshots?limit=5000", { headers: AUTH }, 400],
      ["requests status unknown", "GET", "/admin/requests?status=NOPE", { headers: AUTH }, 400],
      // Admin bodies
      ["replay body not JSON", "POST", "/admin/replay", json("{not json"), 400],
      ["replay body null", "POST", "/admin/replay", json("null"), 400],
      ["replay body an array", "POST", "/admin/replay", json("[1,2]"), 400],
      ["replay body a string", "POST", "/admin/replay", json('"x"'), 400],
      ["replay ids as strings", "POST", "/admin/replay", json('{"msgIds":["1"]}'), 400],
      ["replay unknown class", "POST", "/admin/replay", json('{"errorClasses":["NOPE"]}'), 400],
      ["replay selecting nothing", "POST", "/admin/replay", json("{}"), 400],
      ["replay empty body", "POST", "/admin/replay", { headers: AUTH }, 400],
      ["replay body in latin-1", "POST", "/admin/replay", { headers: { ...AUTH, "content-type": "application/json; charset=iso-8859-1" }, body: '{"msgIds":[1]}' }, 415],
      ["replay body not UTF-8", "POST", "/admin/replay", { headers: { ...AUTH, "content-type": "application/json" }, body: Buffer.from([0x7b, 0xff, 0x7d]) }, 400],
      ["replay operator blank", "POST", "/admin/replay", json('{"msgIds":[1],"operator":" "}'), 400],
      ["replay expect not a map", "POST", "/admin/replay", json('{"msgIds":[1],"expect":[1]}'), 400],
      ["replay expect with a key of no kind", "POST", "/admin/replay", json('{"msgIds":[1],"expect":{"gate:1":1}}'), 400],
      ["replay expect version negative", "POST", "/admin/replay", json('{"msgIds":[1],"expect":{"flight:1":-1}}'), 400],
      ["dead-letters errorClass unknown", "GET", "/admin/dead-letters?errorClass=NOPE", { headers: AUTH }, 400],
      ["raw of an id with an exponent", "GET", "/admin/messages/1e3/raw", { headers: AUTH }, 400],
      ["raw without the token", "GET", "/admin/messages/1/raw", {}, 401],
      ["audit limit 0", "GET", "/admin/audit?limit=0", { headers: AUTH }, 400],
      ["audit after 0", "GET", "/admin/audit?after=0", { headers: AUTH }, 400],
      ["replay body over 64 KiB", "POST", "/admin/replay", json(`{"operator":"${"x".repeat(70_000)}"}`), 413],
      ["schedule without dates", "POST", "/admin/requests/schedule", json("{}"), 400],
      ["ref with a number", "POST", "/admin/requests/ref", json('{"rtype":7}'), 400],
      // Ingress
      ["ingress without the token", "POST", "/cminmsgs/send", { headers: { "content-type": "application/xml" }, body: "<MSG/>" }, 401],
      ["ingress with a wrong token of the same length", "POST", "/cminmsgs/send", { headers: { authorization: `Bearer ${"x".repeat(TOKEN.length)}`, "content-type": "application/xml" }, body: "<MSG/>" }, 401],
      ["ingress with another scheme", "POST", "/cminmsgs/send", { headers: { authorization: `Basic ${TOKEN}`, "content-type": "application/xml" }, body: "<MSG/>" }, 401],
      ["ingress without a content type", "POST", "/cminmsgs/send", { headers: AUTH, body: "<MSG/>" }, 415],
      ["ingress as JSON", "POST", "/cminmsgs/send", xml("{}", "application/json"), 415],
      ["ingress with a malformed content type", "POST", "/cminmsgs/send", xml("<MSG/>", "///"), 415],
      ["ingress in latin-1", "POST", "/cminmsgs/send", xml(Buffer.from("<MSG>caf\xe9</MSG>", "latin1"), "text/xml; charset=iso-8859-1"), 415],
      ["ingress bytes not UTF-8", "POST", "/cminmsgs/send", xml(Buffer.from("<MSG>caf\xe9</MSG>", "latin1")), 400],
      ["ingress UTF-16 without a charset", "POST", "/cminmsgs/send", xml(Buffer.from("\ufeff<MSG/>", "utf16le")), 400],
      ["ingress empty", "POST", "/cminmsgs/send", xml(""), 400],
      ["ingress blank", "POST", "/cminmsgs/send", xml(" \r\n\t "), 400],
      ["ingress over the cap", "POST", "/cminmsgs/send", xml("x".repeat(5_000)), 413],
      ["ingress declaring more than the cap", "POST", "/cminmsgs/send", { headers: { ...xml("").headers, "content-length": "999999" }, body: "" }, 413],
    ];
    for (const [name, method, path, options, status] of cases) expectClientError(name, await send(method, path, options), status);

    // Chunked uploads have no declared length: the cap stops the read on the way.
    const chunked = await rawExchange([`POST /cminmsgs/send HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/xml\r\nTransfer-Encoding: chunked\r\n\r\n`, ...Array.from({ length: 10 }, () => `400\r\n${"x".repeat(1024)}\r\n`)]);
    expect(chunked.status, "chunked over the cap").toBe(413);

    // Garbage on the wire: node:http answers 400 (or 431 for oversized headers) and closes.
    for (const [name, bytes, status] of [
      ["not HTTP", "\x16\x03\x01\x02\x00garbage\r\n\r\n", 400],
      ["a bad request line", "GET  /healthz HTTP/9.9\r\n\r\n", 400],
      ["a header with a NUL", "GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\x00b\r\n\r\n", 400],
      ["both content-length and chunked", `POST /cminmsgs/send HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`, 400],
      ["a conflicting content-length", `POST /cminmsgs/send HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello`, 400],
      ["headers over 16 KiB", `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`, 431],
    ] as const) {
      const r = await rawExchange([bytes]);
      expect(r.closedByServer, name).toBe(true);
      expect(r.status, name).toBe(status);
    }

    // Slow and stalled clients: the server closes them (408 or a bare close), none is kept.
    const stalls = await Promise.all([
      // Headers that never end (slowloris).
      ...Array.from({ length: 20 }, () => rawExchange(["GET /healthz HTTP/1.1\r\nHost: x\r\n", "X-A: 1\r\n"], 200)),
      // An upload that stops after a few bytes.
      ...Array.from({ length: 20 }, () => rawExchange([`POST /cminmsgs/send HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/xml\r\nContent-Length: 1000\r\n\r\n<MSG>`])),
      // An upload that trickles a byte every 100 ms, past the request timeout.
      ...Array.from({ length: 5 }, () => rawExchange([`POST /cminmsgs/send HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/xml\r\nContent-Length: 1000\r\n\r\n`, ..."<MSG>".repeat(50)], 100)),
    ]);
    for (const [i, s] of stalls.entries()) {
      expect(s.closedByServer, `stalled client ${i}`).toBe(true);
      expect([0, 408], `stalled client ${i}`).toContain(s.status);
    }
    const stats = await stopProbe();
    console.info(`[http hostile] ${cases.length} requests + 1 chunked + 6 raw + ${stalls.length} stalled clients (closed after ${Math.round(Math.min(...stalls.map((s) => s.closedAfterMs)))}–${Math.round(Math.max(...stalls.map((s) => s.closedAfterMs)))} ms); /healthz: ${stats.count} answers, p50 ${stats.p50.toFixed(1)} ms, max ${stats.max.toFixed(1)} ms, ${stats.over100} over 100 ms, ${stats.failures} failed (the prober's own event-loop delay: max ${stats.proberMaxDelayMs.toFixed(1)} ms)`);
    expect(stats.failures).toBe(0);
    // Stalled clients never hold the server: /healthz keeps answering well inside the stall time.
    // The tight bound holds only when the prober itself was not starved by a loaded machine.
    expect(stats.p50).toBeLessThan(1_000);
    // Even then one answer in fifty may pass 100 ms: the runner shares two CPUs with the databases
    // and the broker (it was one of 104 at 100.7 ms), while a held server fails every answer after.
    if (stats.proberMaxDelayMs < 100) {
      expect(stats.p50).toBeLessThan(100);
      expect(stats.over100, `${stats.over100} of ${stats.count} answers over 100 ms`).toBeLessThanOrEqual(Math.ceil(stats.count / 50));
    }

    // Still serving: a valid message is accepted and the request id is echoed.
    const ok = await send("POST", "/cminmsgs/send", { headers: { ...AUTH, "content-type": "application/xml", "x-request-id": "trace-me-42" }, body: "<MSG/>" });
    expect(ok.status).toBe(200);
    expect(ok.headers["x-request-id"]).toBe("trace-me-42");
    expect((await send("GET", "/healthz")).headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
    // An id that is not a plain token is replaced, not echoed into the answer and the log.
    expect((await send("GET", "/healthz", { headers: { "x-request-id": "a b {}" } })).headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
  }, 120_000);
});
