/**
 * The world of the console's reliable-message and task views in the browser test: the built
 * `msgx run` on the embedded default behind the console's token, with the task service on (no
 * executing system: the caller reports the dispatch) and one handler code watched by a short
 * deadline. Seeded over `/rm/v1` and `/task/v1` only, as a producer, an owner and an executing
 * system would: a reliable message prepared, then confirmed and held SENDING by its delay, a task whose owner called back
 * FAILURE (its owner event dead), and a task past its deadline (overdue).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CONSOLE_TOKEN } from "./console-world.js";
import { callRunner } from "./embedded-http.js";
import { eventually, spawnRunner, stopRunner } from "./runner-process.js";

/** The watched handler code's deadline, from the dispatch. */
const DEADLINE_MS = 300;
/** Longer than any run: the reliable message is neither checked back nor sent while the suite looks. */
const HOLD_MS = 3_600_000;

export interface ConsoleServicesWorld {
  readonly url: string;
  /** The reliable message, confirmed and held SENDING by its delay. */
  readonly messageId: string;
  /** The task whose owner event is dead (the owner called back FAILURE). */
  readonly deadTaskId: string;
  /** The task reported overdue (DEADLINE). */
  readonly overdueTaskId: string;
  /** A call with the world's token (`/admin`, `/rm/v1` and `/task/v1` take the same one here). */
  readonly call: (method: string, path: string, body?: unknown) => Promise<{ status: number; body: Record<string, any> }>;
  readonly stop: () => Promise<void>;
}

export async function startConsoleServicesWorld(): Promise<ConsoleServicesWorld> {
  const dir = mkdtempSync(join(tmpdir(), "msgx-console-services-"));
  const config = join(dir, "msgx.json");
  writeFileSync(config, JSON.stringify({ tasks: { enabled: true, owners: ["LMS"], jobIntervalMs: 100, overdue: { byHandlerCode: { LMS_SLOW: { deadlineMs: DEADLINE_MS } } } } }));
  const runner = await spawnRunner(["-c", config, "--data-dir", join(dir, "data")], { MSGX_HTTP_TOKEN: CONSOLE_TOKEN });
  const call = (method: string, path: string, body?: unknown) => callRunner(runner.url, method, path, body, CONSOLE_TOKEN);
  const expectStatus = async (answer: Promise<{ status: number; body: Record<string, any> }>, status: number, what: string) => {
    const a = await answer;
    if (a.status !== status) throw new Error(`${what}: answered ${a.status} ${JSON.stringify(a.body)}`);
    return a.body;
  };
  try {
    const messageId = "console-held-1";
    // Prepared, then confirmed by a second call: two changes in its lineage; its delay and check delay keep it still.
    await expectStatus(call("POST", "/rm/v1/messages", { messageId, queue: "console.orders", body: "held", checkDelayMs: HOLD_MS }), 201, "prepare");
    await expectStatus(call("POST", `/rm/v1/messages/${messageId}/confirm`, { delayMs: HOLD_MS }), 200, "confirm");

    const task = (taskId: string, handlerCode: string) => ({ taskId, ownerService: "LMS", handlerCode, bizType: "CALL_TUBE", bizId: `biz-${taskId}`, externalSystem: "ACS", payload: {} });
    const deadTaskId = "console-task-dead";
    await expectStatus(call("POST", "/task/v1/tasks", task(deadTaskId, "LMS_CALL_TUBE")), 201, "create");
    await expectStatus(call("POST", `/task/v1/tasks/${deadTaskId}/dispatched`, { externalTaskNo: "ACS-1" }), 200, "dispatched");
    const finished = await expectStatus(call("POST", `/task/v1/tasks/${deadTaskId}/feedback`, { externalEventId: "acs-1", status: "FINISHED" }), 200, "feedback");
    await expectStatus(call("POST", "/rpc-api/task/callback-result", { taskId: deadTaskId, eventId: finished["eventId"], result: "FAILURE", message: "the owner's handler refused it" }), 200, "callback");

    const overdueTaskId = "console-task-slow";
    await expectStatus(call("POST", "/task/v1/tasks", task(overdueTaskId, "LMS_SLOW")), 201, "create");
    await expectStatus(call("POST", `/task/v1/tasks/${overdueTaskId}/dispatched`, { externalTaskNo: "ACS-2" }), 200, "dispatched");
    await eventually(async () => ((await call("GET", "/task/v1/tasks?overdue=true")).body["tasks"]?.some((t: { taskId: string }) => t.taskId === overdueTaskId) ? true : undefined), 60_000, `${overdueTaskId} overdue`);

    return {
      url: runner.url,
      messageId,
      deadTaskId,
      overdueTaskId,
      call,
      stop: async () => {
        await stopRunner(runner, "console services world");
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    await stopRunner(runner, "console services world");
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}
