/**
 * README's "Running on real infrastructure" against a MariaDB database without the mailbox tables
 * (issue 31, item 9): the runner says once at start which tables are missing and how a
 * development mailbox is made; `POST /cminmsgs/send` is 503 naming the fix, not 500; the intake's
 * failure is logged once, not at every retry; `msgx migrate --mailbox-dev` (the built CLI) makes
 * the tables and everything resumes without a restart. Tables of names only this suite uses.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import mysql from "mysql2/promise";
import { dropMailboxTables } from "@msgx/adapters-mysql";
import type { Logger } from "@msgx/core";
import { gateService } from "@msgx/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createExchange, type Exchange } from "../src/app/create-exchange.js";
import { loadConfig } from "../src/config/load-config.js";
import { namesOverrides, uniqueUpstreamNames } from "./mysql-names.js";
import { CLI, eventually } from "./runner-process.js";
import { killOnExit } from "./script-process.js";

const MYSQL_URL = process.env["MSGX_TEST_MYSQL_URL"] ?? "mysql://root@127.0.0.1:3306/test";
const gate = await gateService("MariaDB", "a mailbox without its tables", async () => {
  const c = await mysql.createConnection({ uri: MYSQL_URL, connectTimeout: 3_000 });
  await c.end();
});

interface Line {
  readonly level: string;
  readonly msg: string;
  readonly fields: Record<string, unknown>;
}

describe.skipIf(!gate.available)("a MySQL mailbox without its tables", () => {
  const names = uniqueUpstreamNames("nomailbox");
  const overrides = namesOverrides(names);
  const dataDir = mkdtempSync(join(tmpdir(), "msgx-mailbox-missing-"));
  const lines: Line[] = [];
  const record = (level: string) => (msg: string, fields?: Record<string, unknown>) => void lines.push({ level, msg, fields: fields ?? {} });
  const logger: Logger = { debug: record("debug"), info: record("info"), warn: record("warn"), error: record("error") };
  let exchange: Exchange | undefined;
  let base = "";
  const send = () => fetch(new URL("/cminmsgs/send", base), { method: "POST", headers: { "content-type": "application/xml" }, body: "<MSG/>" });

  beforeAll(async () => {
    const config = loadConfig({ env: {}, overrides: { dataDir, "mysql.url": MYSQL_URL, "http.port": "0", ...overrides } });
    exchange = await createExchange(config, { logger });
    base = await exchange.start();
  }, 120_000);

  afterAll(async () => {
    await exchange?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    const pool = mysql.createPool({ uri: MYSQL_URL, connectionLimit: 1 });
    await dropMailboxTables(pool as never, names);
    await pool.end();
  }, 60_000);

  it("says once at start which tables are missing and how a development mailbox is made", async () => {
    const said = await eventually(async () => lines.find((l) => l.msg.startsWith("mailbox tables missing:")), 30_000, "the start's line");
    expect(said.level).toBe("error");
    expect(said.msg).toContain(`.${names.inbound.table}`);
    expect(said.msg).toContain(`.${names.outbound.table}`);
    expect(String(said.fields["fix"])).toMatch(/\.\/msgx migrate --mailbox-dev.*packages\/adapters-mysql\/sql\/mailbox\.ddl\.sql/);
  });

  it("answers POST /cminmsgs/send 503 naming the fix, not 500", async () => {
    const res = await send();
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("5");
    const body = (await res.json()) as { error: string; message: string; code: string };
    expect(body).toMatchObject({ error: "unavailable", code: "MAILBOX_MISCONFIGURED" });
    expect(body.message).toContain(`${names.inbound.table}' doesn't exist`);
    expect(body.message).toContain("./msgx migrate --mailbox-dev");
    expect(lines.filter((l) => l.msg === "http request failed")).toEqual([]);
  });

  it("logs the intake's failure once, not at every retry", async () => {
    // Three retries (after 1, 2 and 4 s): the first is an error, the others debug.
    await eventually(async () => (lines.filter((l) => l.msg === "intake step failed again").length >= 2 ? true : undefined), 60_000, "two more intake retries");
    const failed = lines.filter((l) => l.msg === "intake step failed");
    expect(failed).toHaveLength(1);
    expect(failed[0]!.level).toBe("error");
    expect(String(failed[0]!.fields["error"])).toContain("ER_NO_SUCH_TABLE");
  }, 90_000);

  it("msgx migrate --mailbox-dev makes the tables; the ingress and the intake resume without a restart", async () => {
    expect(existsSync(CLI), "build first (pnpm build:run)").toBe(true);
    const env: NodeJS.ProcessEnv = { ...process.env, MSGX_LOG_LEVEL: "warn" };
    for (const [key, value] of Object.entries(overrides)) env[`MSGX_${key.split(".").map((p) => p.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase()).join("_")}`] = value;
    const child = spawn(process.execPath, [CLI, "migrate", "--mailbox-dev", "--mysql", MYSQL_URL, "--data-dir", join(dataDir, "migrate")], { env, stdio: ["ignore", "pipe", "pipe"] });
    killOnExit(child);
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(code, out).toBe(0);
    expect(out).toContain(`mailbox tables created (development): `);
    expect(out).toContain(names.inbound.table);

    const res = await eventually(async () => {
      const r = await send();
      return r.status === 200 ? r : undefined;
    }, 30_000, "the ingress to accept");
    expect(Number(await res.text())).toBeGreaterThan(0);
    await eventually(async () => lines.find((l) => l.msg === "intake step recovered"), 60_000, "the intake to recover");
  }, 240_000);
});
