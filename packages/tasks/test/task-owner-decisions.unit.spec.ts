import { describe, expect, it } from "vitest";
import { shouldReopenCallback, shouldReopenForReplay } from "../src/task-consume-decision.js";
import type { TaskConsumeLogEntry } from "../src/task-consume-log.js";
import { expectsTaskCallback } from "../src/task-event.js";

const row = (status: TaskConsumeLogEntry["status"], deliveryEventId: string | null, callbackStatus: TaskConsumeLogEntry["callbackStatus"] = null): TaskConsumeLogEntry => ({
  eventId: "T1#2",
  taskId: "T1",
  ownerService: "LMS",
  handlerCode: "LMS_H",
  eventType: "TASK_FINISHED",
  status,
  errorMsg: null,
  attempts: 0,
  nextAttemptAt: null,
  payload: null,
  deliveryEventId,
  callbackStatus,
  callbackAttempts: 0,
  callbackNextAt: null,
  callbackError: null,
  createdAt: 0,
  updatedAt: 0,
});

describe("the owner's decisions on replays, redeliveries and progress", () => {
  it("a replay reopens only a DEAD row, only with a replay id, and not from the record that last wrote it", () => {
    expect(shouldReopenForReplay(row("DEAD", "7"), "rp-1", "8")).toBe(true);
    expect(shouldReopenForReplay(row("DEAD", "8"), "rp-1", "8")).toBe(false);
    // Without a relay event id the record cannot be told apart: the replay is taken.
    expect(shouldReopenForReplay(row("DEAD", null), "rp-1", null)).toBe(true);
    expect(shouldReopenForReplay(row("DEAD", "7"), "rp-1", null)).toBe(true);
    expect(shouldReopenForReplay(row("DEAD", "7"), undefined, "8")).toBe(false);
    expect(shouldReopenForReplay(row("DEAD", "7"), "", "8")).toBe(false);
    for (const status of ["SUCCEEDED", "FAILED"] as const) expect(shouldReopenForReplay(row(status, "7"), "rp-1", "8")).toBe(false);
    expect(shouldReopenForReplay(undefined, "rp-1", "8")).toBe(false);
  });

  it("a redelivery reopens only a SENT report", () => {
    expect(shouldReopenCallback(row("SUCCEEDED", "7", "SENT"))).toBe(true);
    expect(shouldReopenCallback(row("DEAD", "7", "SENT"))).toBe(true);
    for (const c of ["PENDING", "REJECTED", null] as const) expect(shouldReopenCallback(row("SUCCEEDED", "7", c))).toBe(false);
  });

  it("only final events expect a callback", () => {
    expect([expectsTaskCallback("TASK_FINISHED"), expectsTaskCallback("TASK_CANCELLED"), expectsTaskCallback("TASK_EXECUTING")]).toEqual([true, true, false]);
  });
});
