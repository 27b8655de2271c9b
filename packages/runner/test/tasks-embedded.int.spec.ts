/**
 * The hosted task service wired end to end in one process (issue 21): `createExchange` on the
 * embedded default (PGlite + JSONL) with `tasks.enabled`, a token for `/task/v1`, owners LMS and
 * WMS, and an executing system on node:http. A created task is dispatched by the dispatch step
 * (Idempotency-Key = taskId), its EXECUTING and FINISHED feedback land as owner events in
 * `<data-dir>/events/TASK_EVENT_TOPIC.jsonl` with the owner header, the owner's callback finishes
 * it; a cancel after dispatch goes through the executing system; an unknown owner is 422; `/metrics`
 * shows the task series; a watched task left silent gets TASK_OVERDUE (HEARTBEAT, DEADLINE); `msgx
 * tasks show|replay --url` read and preflight through the runner.
 * (The multi-process flows on PostgreSQL and Kafka are task-service.e2e.)
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "@msgx/core";
import { createExchange, loadConfig, type Exchange } from "@msgx/runner";
import { Command } from "commander";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { registerTasksCommands } from "../src/commands/tasks-commands.js";
import { callRunner, jsonlRecords } from "./embedded-http.js";

const TASK_TOKEN = "task-embedded-token-0123";
const dataDir = mkdtempSync(join(tmpdir(), "msgx-tasks-embedded-"));
const acsCalls: { path: string; key: string | undefined; body: Record<string, unknown> }[] = [];
let acs: Server;
let exchange: Exchange;
let base = "";

beforeAll(async () => {
  acs = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
      const key = req.headers["idempotency-key"];
      acsCalls.push({ path: req.url ?? "", key: typeof key === "string" ? key : undefined, body });
      const answer = req.url === "/acs/tasks" ? { externalTaskNo: `ACS-${String(body["taskId"])}` } : { status: "CANCELLED" };
      res.writeHead(req.url === "/acs/tasks" ? 201 : 200, { "content-type": "application/json" }).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => acs.listen(0, "127.0.0.1", resolve));
  exchange = await createExchange(
    loadConfig({
      env: {},
      overrides: {
        dataDir,
        "http.port": "0",
        "tasks.enabled": "true",
        "tasks.token": TASK_TOKEN,
        "tasks.owners": "LMS,WMS",
        "tasks.jobIntervalMs": "100",
        // Only LMS_SLOW tasks are watched: the other flows here end long before any timeout.
        "tasks.overdue.byHandlerCode": JSON.stringify({ LMS_SLOW: { heartbeatMs: 300, deadlineMs: 900 } }),
        // PGlite runs in this process: a loaded machine may stall the executing system's answers.
        "tasks.dispatcher.timeoutMs": "15000",
        "tasks.dispatcher.url": `http://127.0.0.1:${(acs.address() as AddressInfo).port}/acs`,
      },
    }),
    { logger: silentLogger },
  );
  base = await exchange.start();
}, 60_000);
afterAll(async () => {
  await exchange?.stop();
  await new Promise((resolve) => acs.close(resolve));
  rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

const api = (method: string, path: string, body?: unknown, token = TASK_TOKEN) => callRunner(base, method, path, body, token);
const delivered = () => jsonlRecords(dataDir, "TASK_EVENT_TOPIC");
const task = (taskId: string, ownerService = "LMS") => ({ taskId, ownerService, handlerCode: "LMS_CALL_TUBE", bizType: "CALL_TUBE", bizId: `biz-${taskId}`, externalSystem: "ACS", payload: { to: "B2" } });
const statusOf = async (id: string) => (await api("GET", `/task/v1/tasks/${id}`)).body["task"]?.status as string | undefined;

describe("the embedded runner hosts /task/v1", () => {
  it("dispatches, relays the owner events with the owner header, and finishes on the owner's callback", async () => {
    expect(await api("POST", "/task/v1/tasks", task("E-1"))).toMatchObject({ status: 201, body: { task: { status: "CREATED" } } });
    await vi.waitFor(async () => expect(await statusOf("E-1")).toBe("DISPATCHED"), { timeout: 20_000, interval: 100 });
    expect(acsCalls[0]).toMatchObject({ path: "/acs/tasks", key: "E-1", body: { taskId: "E-1", externalSystem: "ACS", payload: { to: "B2" } } });

    expect((await api("POST", "/task/v1/tasks/E-1/feedback", { externalEventId: "acs-1", status: "EXECUTING", progress: "40%" })).status).toBe(200);
    const finished = await api("POST", "/task/v1/tasks/E-1/feedback", { externalEventId: "acs-2", status: "FINISHED" });
    expect(finished).toMatchObject({ status: 200, body: { outcome: "APPLIED", task: { status: "FINISHED_PENDING_CALLBACK" } } });
    await vi.waitFor(() => expect(delivered().map((l) => l.headers["msgx-task-event"])).toEqual(["TASK_EXECUTING", "TASK_FINISHED"]), { timeout: 20_000, interval: 100 });
    for (const line of delivered()) expect(line).toMatchObject({ key: "E-1", headers: { "msgx-owner": "LMS", "msgx-handler-code": "LMS_CALL_TUBE" } });

    const eventId = finished.body["eventId"] as string;
    expect(await api("POST", "/rpc-api/task/callback-result", { taskId: "E-1", eventId, result: "SUCCESS" })).toMatchObject({ status: 200, body: { status: "FINISHED" } });

    const metrics = await (await fetch(new URL("/metrics", base))).text();
    expect(metrics).toMatch(/^msgx_task_dispatch_total\{outcome="accepted"\} 1$/m);
    expect(metrics).toMatch(/^msgx_task_replays_total 0$/m);
  }, 40_000);

  it("cancels a dispatched task in the executing system; refuses an unknown owner (422) and a call without the token (401)", async () => {
    expect((await api("POST", "/task/v1/tasks", task("E-2", "WMS"))).status).toBe(201);
    await vi.waitFor(async () => expect(await statusOf("E-2")).toBe("DISPATCHED"), { timeout: 20_000, interval: 100 });
    const cancelled = await api("POST", "/task/v1/tasks/E-2/cancel", { reason: "operator" });
    expect(cancelled).toMatchObject({ status: 200, body: { outcome: "cancelled", task: { status: "CANCEL_PENDING_CALLBACK" } } });
    expect(acsCalls.map((c) => c.path)).toContain("/acs/tasks/ACS-E-2/cancel");
    await vi.waitFor(() => expect(delivered().filter((l) => l.key === "E-2").map((l) => l.headers["msgx-task-event"])).toEqual(["TASK_CANCELLED"]), { timeout: 20_000, interval: 100 });

    expect(await api("POST", "/task/v1/tasks", task("E-3", "MES"))).toMatchObject({ status: 422, body: { code: "UNKNOWN_OWNER" } });
    expect((await api("GET", "/task/v1/tasks/E-2", undefined, "")).status).toBe(401);
  }, 40_000);

  it("a watched task left silent: TASK_OVERDUE (HEARTBEAT, then DEADLINE) in the owner's JSONL, status kept, listed as overdue", async () => {
    expect((await api("POST", "/task/v1/tasks", { ...task("E-4"), handlerCode: "LMS_SLOW" })).status).toBe(201);
    await vi.waitFor(async () => expect(await statusOf("E-4")).toBe("DISPATCHED"), { timeout: 20_000, interval: 100 });
    const overdue = () => delivered().filter((l) => l.key === "E-4" && l.headers["msgx-task-event"] === "TASK_OVERDUE").map((l) => (JSON.parse(l.value) as { overdueReason: string }).overdueReason);
    await vi.waitFor(() => expect(overdue().sort()).toEqual(["DEADLINE", "HEARTBEAT"]), { timeout: 20_000, interval: 100 });
    expect(await statusOf("E-4")).toBe("DISPATCHED");
    expect((await api("GET", "/task/v1/tasks?overdue=true")).body["tasks"].map((t: { taskId: string }) => t.taskId)).toEqual(["E-4"]);
    expect(await (await fetch(new URL("/metrics", base))).text()).toMatch(/^msgx_task_overdue_total\{reason="DEADLINE"\} 1$/m);
  }, 40_000);
  it("the lineage of the cancelled task names the cancel and its HTTP caller (/admin/tasks/<id>/lineage); an unknown task is 404", async () => {
    const answer = await callRunner(base, "GET", "/admin/tasks/E-2/lineage", undefined, "");
    expect(answer.status).toBe(200);
    // Newest first (as the flight lineage): the oldest three are the story.
    const entries = (answer.body["entries"] as { from: string | null; to: string; cause: Record<string, unknown>; caller: Record<string, unknown> | null }[]).toReversed();
    expect(entries.slice(0, 3).map((e) => [e.from, e.to, e.cause["kind"]])).toEqual([
      [null, "CREATED", "create"],
      ["CREATED", "DISPATCHED", "dispatch"],
      ["DISPATCHED", "CANCEL_PENDING_CALLBACK", "cancel"],
    ]);
    expect(entries[2]).toMatchObject({ cause: { reason: "operator" }, caller: { route: "POST /task/v1/tasks/:id/cancel", remoteAddress: expect.stringMatching(/127\.0\.0\.1/) } });
    expect(entries[1]!.caller).toBeNull();
    expect((await callRunner(base, "GET", "/admin/tasks/E-none/lineage", undefined, "")).status).toBe(404);
  }, 20_000);
});

/** Runs `msgx tasks <args>` in process; returns what it printed. */
async function msgx(args: readonly string[]): Promise<string> {
  const program = new Command().name("msgx").exitOverride();
  registerTasksCommands(program);
  let out = "";
  const stdout = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => ((out += String(chunk)), true));
  try {
    await program.parseAsync(["node", "msgx", "tasks", ...args]);
  } finally {
    stdout.mockRestore();
  }
  return out;
}

describe("msgx tasks --url", () => {
  it("lineage: the same entries as the admin route, as JSON and as a table", async () => {
    const json = JSON.parse(await msgx(["lineage", "E-1", "--url", base, "--json"])) as { status: string; entries: { to: string }[] };
    expect(json).toEqual((await callRunner(base, "GET", "/admin/tasks/E-1/lineage", undefined, "")).body);
    expect(json.entries.map((e) => e.to)).toEqual(["FINISHED", "FINISHED_PENDING_CALLBACK", "EXECUTING", "DISPATCHED", "CREATED"]);
    const table = (await msgx(["lineage", "E-1", "--url", base])).trim().split("\n");
    expect(table).toHaveLength(7);
    expect(table.at(-1)).toMatch(/^task E-1 \(T\d+\) is FINISHED$/);
  });

  it("shows a task with its logs, and preflights a replay (nothing dead: nothing eligible)", async () => {
    const tokenFile = join(dataDir, "task-token");
    writeFileSync(tokenFile, `${TASK_TOKEN}\n`);
    const shown = JSON.parse(await msgx(["show", "E-1", "--url", base, "--token-file", tokenFile])) as { task: { status: string; taskNo: string }; feedback: unknown[] };
    expect(shown.task.status).toBe("FINISHED");
    expect(shown.feedback).toHaveLength(2);
    expect(JSON.parse(await msgx(["show", "nobody", "--url", base, "--token-file", tokenFile]))).toEqual({ error: "no task nobody" });
    const byNo = JSON.parse(await msgx(["show", "--by-no", shown.task.taskNo, "--url", base, "--token-file", tokenFile])) as { task: { taskId: string } };
    expect(byNo.task.taskId).toBe("E-1");
    expect(JSON.parse(await msgx(["show", "--by-no", "T197001019999", "--url", base, "--token-file", tokenFile]))).toEqual({ error: "no task numbered T197001019999" });
    const dry = JSON.parse(await msgx(["replay", "--task", "E-1", "--reason", "check", "--dry-run", "--url", base, "--token-file", tokenFile])) as Record<string, unknown>;
    expect(dry).toMatchObject({ replayId: null, dryRun: true, replayed: [], candidates: [{ taskId: "E-1", eligible: false }] });
    await expect(msgx(["replay", "--reason", "no filter", "--url", base, "--token-file", tokenFile])).rejects.toMatchObject({ kind: "CONFIG" });
  }, 30_000);

  it("still takes --token in argv, and warns that ps shows it", async () => {
    let err = "";
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => ((err += String(chunk)), true));
    try {
      const shown = JSON.parse(await msgx(["show", "E-1", "--url", base, "--token", TASK_TOKEN])) as { task: { status: string } };
      expect(shown.task.status).toBe("FINISHED");
    } finally {
      stderr.mockRestore();
    }
    expect(err).toContain("--token puts the token in argv");
  }, 30_000);
});
