import { silentLogger, type Logger } from "@msgx/core";
import { sql } from "kysely";
import type { LmsApp } from "./lms-app.js";
import { LMS_SLITTER_DOWN_AGV, LMS_STOCK_AREA_CALL_TUBE } from "./lms-handlers.js";
import type { TaskServiceApp } from "./task-service-app.js";

/** One task of the scenario and what the AGV system (ACS) reports for it. */
export interface ScenarioTask {
  readonly taskId: string;
  readonly ownerService: string;
  readonly handlerCode: string;
  readonly report: "FINISHED" | "CANCELLED";
  readonly dispatched: boolean;
  readonly payload: Record<string, unknown>;
  /** What the scenario expects, for the report. */
  readonly expect: string;
}

/** The tasks: two handlers, finished and cancelled, a flaky handler, an unknown code, another owner. */
export function scenarioTasks(prefix: string): readonly ScenarioTask[] {
  const tube = (n: number) => ({ startPointCode: `BHQ-${prefix}-S${n}`, endPointCode: `BHQ-${prefix}-E${n}`, vehicleCode: `ZG-${prefix}-${n}`, to_material: `M-${prefix}-${n}A,M-${prefix}-${n}B`, product_area: "BLK" });
  return [
    { taskId: `${prefix}-T1`, ownerService: "LMS", handlerCode: LMS_STOCK_AREA_CALL_TUBE, report: "FINISHED", dispatched: true, payload: tube(1), expect: "FINISHED; ACS feedback sent three times (two are one report)" },
    { taskId: `${prefix}-T2`, ownerService: "LMS", handlerCode: LMS_SLITTER_DOWN_AGV, report: "FINISHED", dispatched: true, payload: { simulateFailures: 2 }, expect: "FINISHED after two handler failures" },
    { taskId: `${prefix}-T3`, ownerService: "LMS", handlerCode: LMS_SLITTER_DOWN_AGV, report: "CANCELLED", dispatched: true, payload: {}, expect: "CANCELLED (cancelled in ACS)" },
    { taskId: `${prefix}-T4`, ownerService: "LMS", handlerCode: LMS_STOCK_AREA_CALL_TUBE, report: "CANCELLED", dispatched: false, payload: tube(4), expect: "CANCELLED (never dispatched)" },
    { taskId: `${prefix}-T5`, ownerService: "LMS", handlerCode: "LMS_NO_SUCH_HANDLER", report: "FINISHED", dispatched: true, payload: {}, expect: "dead-lettered by LMS: unknown handler code" },
    { taskId: `${prefix}-T6`, ownerService: "WMS", handlerCode: "WMS_INBOUND", report: "FINISHED", dispatched: true, payload: {}, expect: "waits for WMS (not LMS's)" },
  ];
}

export interface ScenarioReport {
  readonly prefix: string;
  readonly settled: boolean;
  readonly durationMs: number;
  readonly tasks: readonly Record<string, unknown>[];
  readonly feedback: readonly Record<string, unknown>[];
  readonly callbacks: readonly Record<string, unknown>[];
  readonly events: readonly Record<string, unknown>[];
  readonly consumeLog: readonly Record<string, unknown>[];
  readonly bizLog: readonly Record<string, unknown>[];
  readonly stats: Readonly<Record<string, number>>;
}

async function post(url: string, body: unknown): Promise<{ status: number; json: unknown }> {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: res.status, json: await res.json().catch(() => null) };
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs: number, logger: Logger): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  logger.warn(`scenario: timed out waiting for ${what}`);
  return false;
}

/**
 * Drives both services the way their callers would, over HTTP: LMS creates its tasks, ACS takes
 * some, reports feedback (repeating itself), the network loses a callback answer and refuses
 * another; then one event is sent again by the relay (as after a lost broker acknowledgement).
 * Returns the rows of both databases.
 */
export async function runScenario(options: {
  readonly task: TaskServiceApp;
  readonly lms: LmsApp;
  readonly prefix?: string;
  readonly timeoutMs?: number;
  readonly logger?: Logger;
}): Promise<ScenarioReport> {
  const { task, lms } = options;
  const logger = options.logger ?? silentLogger;
  const timeoutMs = options.timeoutMs ?? 40_000;
  const prefix = options.prefix ?? `D${Date.now().toString(36).toUpperCase()}`;
  const tasks = scenarioTasks(prefix);
  const ids = tasks.map((t) => t.taskId);
  const started = Date.now();
  const api = (path: string) => `${task.url}/rpc-api/task/${path}`;

  for (const t of tasks) {
    const { status, json } = await post(api("create"), { taskId: t.taskId, ownerService: t.ownerService, handlerCode: t.handlerCode, bizType: t.handlerCode.replace(/^[A-Z]+_/, ""), bizId: `${t.ownerService}-BIZ-${t.taskId}`, externalSystem: "ACS", externalTaskType: "3", payload: t.payload });
    if (status !== 201) throw new Error(`create ${t.taskId}: ${status} ${JSON.stringify(json)}`);
    if (t.dispatched) await post(api("dispatched"), { taskId: t.taskId, externalTaskNo: `ACS-${t.taskId}` });
  }
  // The network: one callback refused before it is recorded, one recorded whose answer is lost.
  task.faults.refuseNextCallbacks = 1;
  task.faults.loseNextCallbackResponses = 1;
  for (const t of tasks) {
    const feedback = { taskId: t.taskId, externalEventId: `ACS-EVT-${t.taskId}-1`, status: t.report, reason: t.report === "CANCELLED" ? "人工取消" : null };
    await post(api("feedback"), feedback);
    if (t === tasks[0]) {
      await post(api("feedback"), feedback); // the same report again: answered from the log
      await post(api("feedback"), { ...feedback, externalEventId: `ACS-EVT-${t.taskId}-2` }); // the same fact, a new id
    }
  }

  const lmsIds = tasks.filter((t) => t.ownerService === "LMS").map((t) => t.taskId);
  const settled = await until(
    "every LMS task settled and reported",
    async () => {
      const { rows } = await sql<{ n: string }>`
        SELECT count(*) AS n FROM task_event_consume_log
        WHERE task_id = ANY(${lmsIds}::text[]) AND callback_status = 'SENT'`.execute(lms.db);
      return Number(rows[0]?.n ?? 0) === lmsIds.length;
    },
    timeoutMs,
    logger,
  );

  // The relay sends T1's event again (as after a lost acknowledgement): LMS must not run it twice,
  // and reports it again (a redelivery is how the task service asks), a harmless DUPLICATE.
  const duplicatesBefore = lms.stats.duplicate;
  const callbacksOfT1 = async () => Number((await sql<{ n: string }>`SELECT count(*) AS n FROM task_callback WHERE task_id = ${ids[0]!}`.execute(task.db)).rows[0]?.n ?? 0);
  const reportsBefore = await callbacksOfT1();
  // Its mark may still be in msg_event_sent or folded into the row: undo both.
  await sql`DELETE FROM msg_event_sent WHERE event_id IN (SELECT event_id FROM msg_event WHERE partition_key = ${ids[0]!})`.execute(task.db);
  await sql`UPDATE msg_event SET status = 'PENDING', sent_at = NULL WHERE partition_key = ${ids[0]!}`.execute(task.db);
  const redelivered = await until("the redelivered event", async () => lms.stats.duplicate > duplicatesBefore, timeoutMs, logger);
  const reportedAgain = await until(
    "the redelivered event reported again",
    async () => {
      const { rows } = await sql<{ n: string }>`
        SELECT count(*) AS n FROM task_event_consume_log
        WHERE task_id = ANY(${lmsIds}::text[]) AND callback_status = 'SENT'`.execute(lms.db);
      return (await callbacksOfT1()) > reportsBefore && Number(rows[0]?.n ?? 0) === lmsIds.length;
    },
    timeoutMs,
    logger,
  );

  const rows = async (db: typeof task.db, query: ReturnType<typeof sql>) => (await query.execute(db)).rows as Record<string, unknown>[];
  return {
    prefix,
    settled: settled && redelivered && reportedAgain,
    durationMs: Date.now() - started,
    tasks: await rows(task.db, sql`SELECT task_id, owner_service, handler_code, status, version, last_event_id, callback_error FROM task_task WHERE task_id = ANY(${ids}::text[]) ORDER BY task_id`),
    feedback: await rows(task.db, sql`SELECT task_id, external_event_id, status, outcome, event_id FROM task_feedback WHERE task_id = ANY(${ids}::text[]) ORDER BY feedback_id`),
    callbacks: await rows(task.db, sql`SELECT task_id, event_id, result, outcome, message FROM task_callback WHERE task_id = ANY(${ids}::text[]) ORDER BY callback_id`),
    events: await rows(task.db, sql`SELECT event_id, target, partition_key, state_version, status, payload ->> 'eventType' AS event_type FROM msg_event_state WHERE partition_key = ANY(${ids}::text[]) ORDER BY event_id`),
    consumeLog: await rows(lms.db, sql`SELECT event_id, task_id, handler_code, event_type, status, attempts, error_msg, callback_status, callback_attempts FROM task_event_consume_log WHERE task_id = ANY(${ids}::text[]) ORDER BY event_id`),
    bizLog: await rows(lms.db, sql`SELECT task_id, handler_code, event_type, detail FROM lms_biz_log WHERE task_id = ANY(${ids}::text[]) ORDER BY log_id`),
    stats: { ...lms.stats },
  };
}
