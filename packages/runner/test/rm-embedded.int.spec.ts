/**
 * The hosted reliable-message service wired end to end in one process (issue 20): `createExchange`
 * on the embedded default (PGlite + JSONL) with a token for `/rm/v1` and a node:http checker.
 * A prepared message the producer never confirms is confirmed by check-back and lands in
 * `<data-dir>/events/rmq.<queue>.jsonl`; a confirmed one at once; the consumer acknowledges over
 * HTTP; `/metrics` shows the reliable series. (The multi-process flows are reliable-service*.e2e.)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "@msgx/core";
import { createExchange, loadConfig, type Exchange } from "@msgx/runner";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { callRunner, jsonlRecords } from "./embedded-http.js";

const RM_TOKEN = "rm-embedded-token-0123";
const dataDir = mkdtempSync(join(tmpdir(), "msgx-rm-embedded-"));
let checker: Server;
let exchange: Exchange;
let base = "";

beforeAll(async () => {
  checker = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end('{"verdict":"confirm"}'));
  });
  await new Promise<void>((resolve) => checker.listen(0, "127.0.0.1", resolve));
  const checkerUrl = `http://127.0.0.1:${(checker.address() as AddressInfo).port}/check`;
  exchange = await createExchange(
    loadConfig({
      env: {},
      overrides: {
        dataDir,
        "http.port": "0",
        "reliable.token": RM_TOKEN,
        "reliable.jobIntervalMs": "100",
        "reliable.checkAfterMs": "200",
        // A loaded machine may stall PGlite (in this process) past a check-back's timeout: the
        // inconclusive check is asked again in 200 ms, not the 60 s default.
        "reliable.checkIntervalMs": "200",
        "reliable.maxCheckIntervalMs": "1000",
        "reliable.checkerTimeoutMs": "15000",
        "reliable.defaultCheckerUrl": checkerUrl,
      },
    }),
    { logger: silentLogger },
  );
  base = await exchange.start();
}, 60_000);
afterAll(async () => {
  await exchange?.stop();
  await new Promise((resolve) => checker.close(resolve));
  rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

const rm = (method: string, path: string, body?: unknown, token = RM_TOKEN) => callRunner(base, method, path, body, token);
const delivered = (queue: string): { messageId: string }[] => jsonlRecords(dataDir, `rmq.${queue}`).map((r) => JSON.parse(r.value) as { messageId: string });

describe("the embedded runner hosts /rm/v1", () => {
  it("delivers a confirmed message and one confirmed by check-back, and takes the consumer's ack", async () => {
    expect((await rm("POST", "/rm/v1/messages?confirm=true", { messageId: "now-1", queue: "orders", body: { n: 1 } })).status).toBe(201);
    const silent = await rm("POST", "/rm/v1/messages", { messageId: "silent-1", queue: "orders", body: "x" });
    expect(silent).toMatchObject({ status: 201, body: { message: { status: "WAITING_CONFIRM" } } });
    await vi.waitFor(() => expect(delivered("orders").map((e) => e.messageId).sort()).toEqual(["now-1", "silent-1"]), { timeout: 20_000, interval: 100 });
    for (const id of ["now-1", "silent-1"]) expect(await rm("POST", `/rm/v1/messages/${id}/ack`)).toMatchObject({ status: 200, body: { message: { status: "ACKNOWLEDGED" } } });
    expect((await rm("GET", "/rm/v1/messages/silent-1", undefined, "")).status).toBe(401);

    const metrics = await (await fetch(new URL("/metrics", base))).text();
    expect(metrics).toMatch(/^msgx_reliable_messages\{phase="ACKNOWLEDGED"\} 2$/m);
    expect(metrics).toMatch(/^msgx_reliable_checkbacks_total\{outcome="confirm"\} 1$/m);
  }, 30_000);
});
