import { sql, type Transaction } from "kysely";
import type { TaskEventHandler, TaskEventMessage, TaskHandlerContext } from "./task-routing.js";

/** The codes LMS registers (seed 001 §6: the successors of `StockAreaCallTubeTask` and `SlitterDownAgvTask`). */
export const LMS_STOCK_AREA_CALL_TUBE = "LMS_STOCK_AREA_CALL_TUBE";
export const LMS_SLITTER_DOWN_AGV = "LMS_SLITTER_DOWN_AGV";

type Ctx = TaskHandlerContext<Transaction<any>>;

const text = (v: unknown, field: string): string => {
  if (typeof v !== "string" || v === "") throw new Error(`payload.${field} is required`);
  return v;
};

/**
 * A demonstration hook: a task created with `payload.simulateFailures = n` makes its handler fail
 * its first n attempts (to show retry with backoff, and dead-lettering past the budget).
 */
function simulatedFailure(event: TaskEventMessage, ctx: Ctx): void {
  const n = event.payload["simulateFailures"];
  if (typeof n === "number" && ctx.attempt <= n) throw new Error(`simulated failure ${ctx.attempt} of ${n} (payload.simulateFailures)`);
}

async function bizLog(tx: Transaction<any>, event: TaskEventMessage, detail: string): Promise<void> {
  await sql`INSERT INTO lms_biz_log (task_id, handler_code, event_type, detail) VALUES (${event.taskId}, ${event.handlerCode}, ${event.eventType}, ${detail})`.execute(tx);
}

/**
 * 备货区送纸管到机械手旁边的备货区 (AGV): the old `StockAreaCallTubeTask#updateTaskStatus`.
 * Finished: the end point holds the vehicle (有货), the start point is empty, and the slitting
 * plans of `to_material` get their paper tubes (`is_paper_ok`). Cancelled: both points are
 * released as they were before the task (the start point keeps its vehicle).
 */
export const stockAreaCallTubeHandler: TaskEventHandler<Transaction<any>> = {
  handlerCode: LMS_STOCK_AREA_CALL_TUBE,
  async onTaskFinished(event, ctx) {
    simulatedFailure(event, ctx);
    const { tx } = ctx;
    const start = text(event.payload["startPointCode"], "startPointCode");
    const end = text(event.payload["endPointCode"], "endPointCode");
    const vehicle = text(event.payload["vehicleCode"], "vehicleCode");
    await sql`INSERT INTO lms_stock_point (point_code, ivt_status, vehicle_code, updated_by) VALUES (${end}, 'FULL', ${vehicle}, ${event.taskId})
              ON CONFLICT (point_code) DO UPDATE SET ivt_status = 'FULL', vehicle_code = EXCLUDED.vehicle_code, updated_by = EXCLUDED.updated_by`.execute(tx);
    await sql`INSERT INTO lms_stock_point (point_code, ivt_status, vehicle_code, updated_by) VALUES (${start}, 'EMPTY', NULL, ${event.taskId})
              ON CONFLICT (point_code) DO UPDATE SET ivt_status = 'EMPTY', vehicle_code = NULL, updated_by = EXCLUDED.updated_by`.execute(tx);
    const materials = String(event.payload["to_material"] ?? "")
      .split(",")
      .map((m) => m.trim())
      .filter((m) => m !== "");
    for (const m of materials) {
      await sql`INSERT INTO lms_slitting_plan (material_code, is_paper_ok, updated_by) VALUES (${m}, true, ${event.taskId})
                ON CONFLICT (material_code) DO UPDATE SET is_paper_ok = true, updated_by = EXCLUDED.updated_by`.execute(tx);
    }
    await bizLog(tx, event, `tube moved ${start} -> ${end} on ${vehicle}; paper ok: ${materials.join(",") || "-"}`);
  },
  async onTaskCancelled(event, ctx) {
    simulatedFailure(event, ctx);
    const { tx } = ctx;
    const start = text(event.payload["startPointCode"], "startPointCode");
    const end = text(event.payload["endPointCode"], "endPointCode");
    await sql`INSERT INTO lms_stock_point (point_code, ivt_status, vehicle_code, updated_by) VALUES (${end}, 'EMPTY', NULL, ${event.taskId})
              ON CONFLICT (point_code) DO UPDATE SET ivt_status = 'EMPTY', vehicle_code = NULL, updated_by = EXCLUDED.updated_by`.execute(tx);
    await sql`UPDATE lms_stock_point SET ivt_status = 'FULL', updated_by = ${event.taskId} WHERE point_code = ${start} AND ivt_status = 'LOCKED'`.execute(tx);
    await bizLog(tx, event, `call-tube cancelled (${event.reason ?? "no reason"}): ${end} released`);
  },
};

/** 分切机下料 AGV: the slitter's unloading job is done, or called off. */
export const slitterDownAgvHandler: TaskEventHandler<Transaction<any>> = {
  handlerCode: LMS_SLITTER_DOWN_AGV,
  async onTaskFinished(event, ctx) {
    simulatedFailure(event, ctx);
    await sql`INSERT INTO lms_slitter_job (biz_id, status, updated_by) VALUES (${event.bizId}, 'DOWN', ${event.taskId})
              ON CONFLICT (biz_id) DO UPDATE SET status = 'DOWN', updated_by = EXCLUDED.updated_by`.execute(ctx.tx);
    await bizLog(ctx.tx, event, `slitter job ${event.bizId} unloaded by AGV ${event.externalTaskNo ?? "?"}`);
  },
  async onTaskCancelled(event, ctx) {
    simulatedFailure(event, ctx);
    await sql`INSERT INTO lms_slitter_job (biz_id, status, updated_by) VALUES (${event.bizId}, 'CANCELLED', ${event.taskId})
              ON CONFLICT (biz_id) DO UPDATE SET status = 'CANCELLED', updated_by = EXCLUDED.updated_by`.execute(ctx.tx);
    await bizLog(ctx.tx, event, `slitter job ${event.bizId} cancelled (${event.reason ?? "no reason"})`);
  },
};

export const LMS_HANDLERS = [stockAreaCallTubeHandler, slitterDownAgvHandler] as const;
