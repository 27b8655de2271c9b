import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { PgReliableMessageStore } from "@msgx/adapters-pg/reliable";
import { ReliableMessageService } from "@msgx/reliable";
import { systemClock } from "@msgx/core";
import { gateService } from "@msgx/core/testing";
import { readJsonlTopic } from "../src/embedded/jsonl-delivery-port.js";
import { CLI, eventually, spawnRunner } from "./runner-process.js";

const PG_URL = process.env["MSGX_TEST_PG_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";
const schema = `rm_e2e_${process.pid}`;
const pool = new pg.Pool({ connectionString: PG_URL, max: 2, connectionTimeoutMillis: 3_000, options: `-c search_path=${schema}` });
const gate = await gateService("PostgreSQL", "runner reliable-message surface", async () => void (await pool.query("SELECT 1")));
const dirs: string[] = [];
afterAll(async () => {
  if (gate.available) await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await pool.end();
  dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
});

describe.skipIf(!gate.available)("msgx hosts the reliable-message service", () => {
  it("relays a producer's message to its queue topic; operators list, mark dead and resend it", async () => {
    await pool.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    const dataDir = mkdtempSync(join(tmpdir(), "msgx-rm-"));
    dirs.push(dataDir);
    const env = { MSGX_PG_SCHEMA: schema };
    const runner = await spawnRunner(["--pg", PG_URL, "--data-dir", dataDir], env);
    try {
      // A producer, in its own process, uses the SDK on the same database.
      const db = new Kysely<any>({ dialect: new PostgresDialect({ pool }) });
      const service = new ReliableMessageService({ store: new PgReliableMessageStore(db), clock: systemClock });
      await service.saveAndSend({ messageId: "pay-1", body: JSON.stringify({ order: 1, amount: 10 }), consumerQueue: "accounting", dataType: "json" });

      const first = await eventually(async () => {
        const r = readJsonlTopic(dataDir, "rmq.accounting");
        return r.length === 1 ? r : undefined;
      }, 30_000, "the message on rmq.accounting");
      expect(first[0]!.key).toBe("pay-1");

      const api = (path: string, method = "GET") => fetch(new URL(path, runner.url), { method }).then((r) => r.json() as Promise<Record<string, any>>);
      const page = await api("/admin/reliable-messages?queue=accounting");
      expect(page["items"].map((m: { messageId: string; status: string }) => [m.messageId, m.status])).toEqual([["pay-1", "SENDING"]]);
      expect((await api("/admin/reliable-messages/pay-1/mark-dead", "POST"))["message"].dead).toBe(true);
      expect((await api("/admin/reliable-messages/resend-dead?queue=accounting", "POST"))["resent"]).toBe(1);
      await eventually(async () => (readJsonlTopic(dataDir, "rmq.accounting").length === 2 ? true : undefined), 30_000, "the resend");
      const sends = readJsonlTopic(dataDir, "rmq.accounting").map((r) => JSON.parse(r.value!) as { messageId: string; sendCount: number });
      expect(sends.map((s) => [s.messageId, s.sendCount])).toEqual([
        ["pay-1", 1],
        ["pay-1", 2],
      ]);
      // The CLI goes through the same admin API.
      const out = execFileSync(process.execPath, [CLI, "reliable", "show", "pay-1", "--url", runner.url], { encoding: "utf8" });
      expect(JSON.parse(out)).toMatchObject({ messageId: "pay-1", status: "SENDING", dead: false, sendCount: 2 });
    } finally {
      runner.child.kill("SIGTERM");
      expect(await runner.exited).toBe(0);
    }
  }, 120_000);
});
