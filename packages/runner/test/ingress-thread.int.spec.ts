/**
 * The ingress thread (`http.ingressThread` on, with the MySQL mailbox): `POST /cminmsgs/send` is
 * served by a worker thread with its own connections, every other request by the main thread's
 * app, handed over by the thread. Runs the built thread (`dist/ingress-worker.js`): build first.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import mysql, { type Pool, type RowDataPacket } from "mysql2/promise";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createMailboxTables, dropMailboxTables, quoteMailboxNames, type MailboxNames } from "@msgx/adapters-mysql";
import { silentLogger, type AppendedElsewhere, type Mailbox } from "@msgx/core";
import { gateService } from "@msgx/core/testing";
import { buildParts } from "../src/app/build-parts.js";
import { startPipeline, type RunningApp } from "../src/app/pipeline-app.js";
import { startServiceHttp, type ServiceHttp } from "../src/app/service-http.js";
import type { HttpContext } from "../src/http/http-context.js";
import { CONSOLE_CSP } from "../src/http/console-routes.js";
import { loadConfig } from "../src/config/load-config.js";
import { namesOverrides, uniqueUpstreamNames } from "./mysql-names.js";
import { eventually } from "./requests-world.js";

const MYSQL_URL = process.env["MSGX_TEST_MYSQL_URL"] ?? "mysql://root@127.0.0.1:3306/test";
const TOKEN = "ingress-thread-token-0123456789";
const gate = await gateService("MariaDB", "runner: the ingress thread", async () => {
  const c = await mysql.createConnection({ uri: MYSQL_URL, connectTimeout: 3_000 });
  await c.end();
});

const ldm = (seqn: number) =>
  `<MSG><META><SNDR>AODB</SNDR><SEQN>${seqn}</SEQN><DTTM>20260305083000</DTTM><TYPE>SYSM</TYPE><STYP>LDM</STYP></META><SYSM/></MSG>`;

describe.skipIf(!gate.available)("the ingress thread", () => {
  let upstream: Pool;
  let names: MailboxNames;
  let dataDir: string;
  const started: { stop(): Promise<void> }[] = [];
  const configFor = (overrides: Record<string, string> = {}) =>
    loadConfig({
      env: {},
      overrides: { dataDir, "http.port": "0", "http.token": TOKEN, "http.maxBodyBytes": "65536", "http.ingressThread": "on", "mysql.url": MYSQL_URL, ...namesOverrides(names), "pipeline.pollIntervalMs": "60000", "log.level": "warn", ...overrides },
    });
  const send = (url: string, body: string, headers: Record<string, string> = {}) =>
    fetch(new URL("/cminmsgs/send", url), { method: "POST", headers: { "content-type": "application/xml", authorization: `Bearer ${TOKEN}`, ...headers }, body });
  const rowText = async (id: number): Promise<string | undefined> => {
    const { table, columns: c } = quoteMailboxNames(names).inbound;
    const [rows] = await upstream.query<RowDataPacket[]>(`SELECT ${c.clobMsg} AS text FROM ${table} WHERE ${c.id} = ?`, [id]);
    return rows[0]?.["text"] as string | undefined;
  };
  /** The service and a pipeline on it, the pipeline's mailbox recording what the thread reported. */
  const startRunner = async (overrides: Record<string, string> = {}) => {
    const config = configFor(overrides);
    const warnings: string[] = [];
    const service = await startServiceHttp(config, { ...silentLogger, warn: (msg) => void warnings.push(msg), error: (msg) => void warnings.push(msg) });
    const reported: AppendedElsewhere[] = [];
    const reads: number[][] = [];
    const built = await buildParts(config, silentLogger);
    const inner = built.mailbox;
    const mailbox: Mailbox = {
      scan: (a, l, s) => inner.scan(a, l, s),
      readRaw: (ids, s) => (reads.push([...ids]), inner.readRaw(ids, s)),
      backfill: (e, s) => inner.backfill(e, s),
      append: (r, s) => inner.append(r, s),
      appendedElsewhere: (appends) => {
        reported.push(...appends);
        inner.appendedElsewhere?.(appends);
      },
    };
    const parts = { ...built, mailbox };
    const app: RunningApp = await startPipeline(parts, config, silentLogger, undefined, undefined, service);
    started.push(app);
    return { service, app, parts, reported, reads, warnings };
  };

  beforeAll(async () => {
    upstream = mysql.createPool({ uri: MYSQL_URL, connectionLimit: 3 });
    names = uniqueUpstreamNames("ith");
    await createMailboxTables(upstream as never, names);
  });
  afterEach(async () => {
    for (const s of started.splice(0)) await s.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });
  afterAll(async () => {
    await dropMailboxTables(upstream as never, names);
    await upstream.end();
  });
  const freshDir = () => (dataDir = mkdtempSync(join(tmpdir(), "msgx-ingress-thread-")));

  it("answers an id only once its row is committed, and hands the text to the pump from memory", async () => {
    freshDir();
    const r = await startRunner({ "pipeline.pollIntervalMs": "100" });
    expect(r.service.ingressThread, "the ingress thread runs from the built dist: build the runner first").toBeDefined();
    const before = Date.now();
    const res = await send(r.service.url, ldm(1), { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const id = Number(await res.text());
    // Committed when answered: another connection reads it at once.
    expect(await rowText(id)).toBe(ldm(1));
    const report = await eventually(async () => r.reported.find((a) => a.msgId === id), "the thread's report of the append");
    expect(report.text).toBe(ldm(1));
    expect(report.traceparent).toBe("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
    expect(report.committedAt).toBeGreaterThanOrEqual(before);
    // The pump took the message; its text came from the mailbox's memory (held once the report arrived).
    await eventually(async () => (await r.parts.store.get(id)) ?? undefined, `message ${id} taken in`);
    await eventually(async () => (r.reads.some((ids) => ids.includes(id)) ? true : undefined), "the pump's read of the text");
    // Served once from memory: the text is no longer held, so a second read goes to the table (same text).
    expect((await r.parts.mailbox.readRaw([id])).get(id)).toEqual({ found: true, text: ldm(1) });
    // The request metrics the thread counted reach /metrics on the main thread.
    const metrics = await (await fetch(new URL("/metrics", r.service.url))).text();
    expect(metrics).toMatch(/msgx_http_requests_total\{[^}]*route="\/cminmsgs\/send"[^}]*\} [1-9]/);
  });

  it("refuses with 401, 413, 415 and 400 as the main thread's ingress does", async () => {
    freshDir();
    const r = await startRunner();
    expect((await send(r.service.url, ldm(2), { authorization: "Bearer wrong-token-0123456789" })).status).toBe(401);
    expect((await send(r.service.url, "x".repeat(70_000))).status).toBe(413);
    expect((await send(r.service.url, ldm(2), { "content-type": "application/json" })).status).toBe(415);
    const empty = await send(r.service.url, "   ");
    expect(empty.status).toBe(400);
    expect(await empty.json()).toEqual({ error: "bad request", message: "empty body" });
  });

  it("answers 503 with retry-after while the pipeline is not running, and when MariaDB is down", async () => {
    freshDir();
    const service: ServiceHttp = await startServiceHttp(configFor(), silentLogger);
    started.push({ stop: () => service.close() });
    const { table } = quoteMailboxNames(names).inbound;
    const [[{ n: rowsBefore }]] = (await upstream.query(`SELECT COUNT(*) AS n FROM ${table}`)) as unknown as [[{ n: number }]];
    const starting = await send(service.url, ldm(3));
    expect(starting.status).toBe(503);
    expect(starting.headers.get("retry-after")).toBe("5");
    expect(((await starting.json()) as { message: string }).message).toContain("starting");
    service.setReadiness({ role: "standby" });
    expect((await send(service.url, ldm(3))).status).toBe(503);
    const [[{ n: rowsAfter }]] = (await upstream.query(`SELECT COUNT(*) AS n FROM ${table}`)) as unknown as [[{ n: number }]];
    expect(rowsAfter).toBe(rowsBefore);

    // Attached, but its MariaDB is unreachable: the append fails as DEPENDENCY_UNAVAILABLE.
    const down: ServiceHttp = await startServiceHttp(configFor({ "mysql.url": "mysql://root@127.0.0.1:1/test" }), silentLogger);
    started.push({ stop: () => down.close() });
    down.attach({} as HttpContext);
    down.setReadiness({ role: "running" });
    const refused = await send(down.url, ldm(4));
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("5");
  });

  it("hands every other route to the main thread: status, headers and body as it answers them", async () => {
    freshDir();
    const r = await startRunner();
    const status = await fetch(new URL("/admin/status", r.service.url), { headers: { authorization: `Bearer ${TOKEN}`, "x-request-id": "forwarded-1" } });
    expect(status.status).toBe(200);
    expect(status.headers.get("x-request-id")).toBe("forwarded-1");
    expect(status.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await status.json()).toHaveProperty("byStatus");
    expect((await fetch(new URL("/admin/status", r.service.url))).status).toBe(401);
    const missing = await fetch(new URL("/no/such/route?x=1", r.service.url));
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: "not found", message: "no route GET /no/such/route" });
    const page = await fetch(new URL("/console", r.service.url));
    expect(page.headers.get("content-security-policy")).toBe(CONSOLE_CSP);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("<html");
    // A body past http.maxBodyBytes is refused by the main app's limit, and that connection closed.
    const big = await fetch(new URL("/admin/replay", r.service.url), {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ msgIds: [1], pad: "x".repeat(100_000) }),
    });
    expect(big.status).toBe(413);
  });

  it("starts another thread on the same port when its thread ends by itself", async () => {
    freshDir();
    const r = await startRunner();
    const thread = r.service.ingressThread!;
    const first = thread.threadId;
    await thread.kill();
    const res = await eventually(async () => send(r.service.url, ldm(5)).catch(() => undefined), "an answer from the next thread");
    expect(res.status).toBe(200);
    expect(await rowText(Number(await res.text()))).toBe(ldm(5));
    expect(thread.threadId).not.toBe(first);
    expect(thread.restarts).toBe(1);
    expect(r.warnings).toEqual(["ingress thread ended; starting another"]);
  });

  it("on stop, answers the appends in flight once committed, then ends the thread", async () => {
    freshDir();
    const r = await startRunner();
    const thread = r.service.ingressThread!;
    const { table } = quoteMailboxNames(names).inbound;
    // The table locked: the thread's INSERTs wait for it, in flight.
    const lock = await upstream.getConnection();
    await lock.query(`LOCK TABLES ${table} WRITE`);
    const answers = Array.from({ length: 5 }, (_, i) => send(r.service.url, ldm(10 + i)));
    await eventually(async () => {
      const [rows] = await upstream.query<RowDataPacket[]>("SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE INFO LIKE 'INSERT INTO%'");
      return Number(rows[0]!["n"]) > 0 ? true : undefined;
    }, "INSERTs waiting on the lock");
    const stopping = r.app.stop();
    started.splice(started.indexOf(r.app), 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await lock.query("UNLOCK TABLES");
    lock.release();
    const ids = await Promise.all(answers.map(async (a) => {
      const res = await a;
      expect(res.status).toBe(200);
      return Number(await res.text());
    }));
    for (const [i, id] of ids.entries()) expect(await rowText(id)).toBe(ldm(10 + i));
    await stopping;
    // It ended by itself once its connections were answered, not terminated after the grace period.
    expect(thread.threadId).toBe(-1);
    expect(r.warnings).toEqual([]);
    await expect(send(r.service.url, ldm(20))).rejects.toThrow();
  });
});
