/**
 * A consumer acknowledging reliable messages over HTTP (issue 36 item 5): one call per message
 * (`POST /rm/v1/messages/<id>/ack`) against one call per batch (`POST /rm/v1/acks`), both against
 * the built `msgx run` on PostgreSQL (embedded JSONL delivery: no broker is involved in an ack),
 * each mode on messages of its own, saved and sent before the timer. Calls go one after the
 * other, as one transactional consumer makes them.
 *
 *   node bench/run.mjs reliable-ack [--messages 2000] [--batch 100]
 *
 * Needs `packages/runner/dist` (npx pnpm build) and PostgreSQL.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPgStores } from "@msgx/adapters-pg";
import { spawnCliRunner } from "./fault/runner.js";
import { fmt, latencyStats, machineInfo, numArg, printTable, runTag, URLS, writeReport } from "./fault/infra.js";

const MESSAGES = numArg("messages", 2_000);
const BATCH = numArg("batch", 100);
const TOKEN = "bench-reliable-token-0123456789";
const auth = { authorization: `Bearer ${TOKEN}` };

async function startRunner(schema: string, dir: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const config = join(dir, "msgx.json");
  writeFileSync(config, JSON.stringify({ reliable: { token: TOKEN } }));
  return spawnCliRunner(["-c", config, "--pg", URLS.pg, "--data-dir", join(dir, "data")], { MSGX_PG_SCHEMA: schema, MSGX_LOG_LEVEL: "warn" });
}

async function call(url: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(new URL(path, url), { method, headers: { ...auth, ...(body !== undefined ? { "content-type": "application/json" } : {}) }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  return { status: res.status, json: await res.json() };
}

/** Saves and sends `ids` (not timed), eight calls at a time. */
async function sendAll(url: string, ids: readonly string[]): Promise<void> {
  for (let i = 0; i < ids.length; i += 8) {
    await Promise.all(
      ids.slice(i, i + 8).map(async (messageId) => {
        const r = await call(url, "POST", "/rm/v1/messages?confirm=true", { messageId, queue: "accounting", body: { booking: messageId, amount: 10 } });
        if (r.status !== 201) throw new Error(`prepare ${messageId}: ${r.status} ${JSON.stringify(r.json)}`);
      }),
    );
  }
}

interface Result {
  readonly mode: string;
  readonly messages: number;
  readonly calls: number;
  readonly seconds: number;
  readonly messagesPerSecond: number;
  readonly callMs: ReturnType<typeof latencyStats>;
}

async function measure(mode: string, url: string, ids: readonly string[], perCall: number): Promise<Result> {
  const callMs: number[] = [];
  const t0 = performance.now();
  for (let i = 0; i < ids.length; i += perCall) {
    const chunk = ids.slice(i, i + perCall);
    const c0 = performance.now();
    const r = perCall === 1 ? await call(url, "POST", `/rm/v1/messages/${encodeURIComponent(chunk[0]!)}/ack`) : await call(url, "POST", "/rm/v1/acks", { messageIds: chunk });
    callMs.push(performance.now() - c0);
    const ok = perCall === 1 ? r.status === 200 && r.json.applied === true : r.status === 200 && r.json.acknowledged === chunk.length;
    if (!ok) throw new Error(`${mode}: ${r.status} ${JSON.stringify(r.json).slice(0, 300)}`);
  }
  const seconds = (performance.now() - t0) / 1000;
  return { mode, messages: ids.length, calls: callMs.length, seconds, messagesPerSecond: ids.length / seconds, callMs: latencyStats(callMs) };
}

async function main(): Promise<void> {
  const tag = runTag("msgx_bench_rmack");
  const dir = mkdtempSync(join(tmpdir(), "msgx-bench-rmack-"));
  // The runner creates its schema and tables on start.
  const runner = await startRunner(tag, dir);
  try {
    const machine = machineInfo();
    const single = Array.from({ length: MESSAGES }, (_, i) => `single-${i}`);
    const batch = Array.from({ length: MESSAGES }, (_, i) => `batch-${i}`);
    await sendAll(runner.url, [...single, ...batch]);
    const results = [await measure("one call per message", runner.url, single, 1), await measure(`one call per ${BATCH}`, runner.url, batch, BATCH)];
    printTable(
      ["mode", "messages", "calls", "s", "msg/s", "call p50 ms", "call p99 ms"],
      results.map((r) => [r.mode, r.messages, r.calls, fmt(r.seconds, 2), fmt(r.messagesPerSecond), fmt(r.callMs.p50, 1), fmt(r.callMs.p99, 1)]),
    );
    const ratio = results[1]!.messagesPerSecond / results[0]!.messagesPerSecond;
    console.log(`batch ack: ${fmt(ratio, 1)}× the one-call-per-message rate (load average ${machine.loadAverage1m} on ${machine.nproc} CPUs)`);
    console.log(writeReport("reliable-ack", { machine, messages: MESSAGES, batch: BATCH, results, ratio }));
  } finally {
    await runner.stop();
    const pg = await createPgStores({ connectionString: URLS.pg, migrate: false, max: 1 });
    await pg.db.schema.dropSchema(tag).ifExists().cascade().execute().catch(() => undefined);
    await pg.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
