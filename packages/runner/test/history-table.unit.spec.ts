import { describe, expect, it } from "vitest";
import { reliableLineageTable, taskLineageTable } from "../src/commands/history-table.js";

const AT = Date.UTC(2026, 11, 6, 14, 20, 1);
const caller = { route: "POST /rm/v1/messages/:id/confirm", requestId: "req-1", remoteAddress: "10.0.0.7", userAgent: "payment-service/2.1" };

describe("lineage tables of reliable messages and tasks", () => {
  it("a message: one line per entry in the order given (the route's, newest first), each cause in words, the phase now last", () => {
    const lines = reliableLineageTable({
      messageId: "pay-42",
      phase: "DEAD",
      entries: [
        { messageId: "pay-42", version: 1, at: AT, from: "ABSENT", to: "WAITING_CONFIRM", event: "saved", detail: null, cause: { kind: "api", caller: { ...caller, route: "POST /rm/v1/messages" } }, repeats: 1, firstAt: AT },
        { messageId: "pay-42", version: 2, at: AT, from: "WAITING_CONFIRM", to: "SENDING", event: "confirmed", detail: "by check-back, send #1", cause: { kind: "check-back", answer: "CONFIRM" }, repeats: 1, firstAt: AT },
        { messageId: "pay-42", version: 3, at: AT + 1_000, from: "SENDING", to: "DEAD", event: "marked-dead", detail: "by recovery: never acknowledged after 3 sends", cause: { kind: "recovery", lastSend: "sent" }, repeats: 1, firstAt: AT + 1_000 },
        { messageId: "pay-42", version: 4, at: AT + 2_000, from: "DEAD", to: "DEAD", event: "rescheduled", detail: null, cause: { kind: "library" }, repeats: 1, firstAt: AT + 2_000 },
      ],
      next: null,
    }).split("\n");
    expect(lines[0]).toMatch(/^VERSION\s+AT \(UTC\)\s+PHASE\s+EVENT\s+CAUSE\s+DETAIL$/);
    expect(lines[1]).toMatch(/^1\s+2026-12-06 14:20:01\s+ABSENT → WAITING_CONFIRM\s+saved\s+api POST \/rm\/v1\/messages req=req-1 from 10\.0\.0\.7 "payment-service\/2\.1"$/);
    expect(lines.slice(2, -1).map((l) => l.split(/\s{2,}/).slice(4))).toEqual([
      ["check-back answered CONFIRM", "by check-back, send #1"],
      ["recovery job (last send sent)", "by recovery: never acknowledged after 3 sends"],
      ["library call"],
    ]);
    expect(lines.at(-1)).toBe("message pay-42 is DEAD");
    // Columns line up: every row's EVENT starts where the header's does.
    const col = lines[0]!.indexOf("EVENT");
    for (const l of lines.slice(1, -1)) expect(l.slice(col)).toMatch(/^(saved|confirmed|marked-dead|rescheduled) /);
  });

  it("a task: each kind of cause in words, its caller or `-`, the status now last", () => {
    const entry = (version: number, from: string | null, to: string, cause: object, withCaller: boolean) =>
      ({ taskId: "T-1", version, at: AT, from, to, cause, caller: withCaller ? { ...caller, route: "POST /task/v1/tasks/:id/cancel", userAgent: null } : null, detail: null, repeats: 1, firstAt: AT }) as never;
    const text = taskLineageTable({
      taskId: "T-1",
      taskNo: "T202612060001",
      status: "CANCEL_PENDING_CALLBACK",
      entries: [
        entry(1, null, "CREATED", { kind: "create" }, true),
        entry(2, "CREATED", "CREATED", { kind: "dispatch", answer: "failed" }, false),
        entry(3, "CREATED", "DISPATCHED", { kind: "mark-dispatched", externalTaskNo: "ACS-9" }, true),
        entry(4, "DISPATCHED", "EXECUTING", { kind: "feedback", externalEventId: "acs-1", status: "EXECUTING" }, true),
        entry(5, "EXECUTING", "EXECUTING", { kind: "overdue", reason: "HEARTBEAT" }, false),
        entry(6, "EXECUTING", "CANCEL_PENDING_CALLBACK", { kind: "cancel", requestId: "ops-42", reason: "人工取消" }, true),
        entry(7, "CANCEL_PENDING_CALLBACK", "CANCEL_PENDING_CALLBACK", { kind: "callback", eventId: "T-1#5", result: "FAILURE" }, false),
        entry(8, "CANCEL_PENDING_CALLBACK", "CANCEL_PENDING_CALLBACK", { kind: "watchdog" }, false),
        entry(9, "CANCEL_PENDING_CALLBACK", "CANCEL_PENDING_CALLBACK", { kind: "replay", replayId: "r-1", by: "ops" }, true),
      ],
      next: null,
    });
    const lines = text.split("\n");
    expect(lines[1]).toMatch(/^1\s+2026-12-06 14:20:01\s+- → CREATED\s+create\s+POST \/task\/v1\/tasks\/:id\/cancel req=req-1 from 10\.0\.0\.7$/);
    expect(lines.slice(2, -1).map((l) => l.split(/\s{2,}/)[3])).toEqual(["dispatch job: failed", "dispatched as ACS-9", "feedback acs-1 EXECUTING", "overdue job: HEARTBEAT", "cancel ops-42: 人工取消", "callback FAILURE for T-1#5", "watchdog", "replay r-1 by ops"]);
    expect(lines[2]!.split(/\s{2,}/)[4]).toBe("-");
    expect(lines.at(-1)).toBe("task T-1 (T202612060001) is CANCEL_PENDING_CALLBACK");
  });

  it("a run of repeats shows its count and first time; a page with older entries says how to page on", () => {
    const recheck = { messageId: "pay-43", version: 42, at: AT + 200_000, from: "SENDING", to: "SENDING", event: "rescheduled", detail: "last send still in the outbox", cause: { kind: "recovery", lastSend: "pending" }, repeats: 40, firstAt: AT + 5_000 } as const;
    const lines = reliableLineageTable({ messageId: "pay-43", phase: "SENDING", entries: [recheck], next: 42 }).split("\n");
    expect(lines[1]).toMatch(/^42\s+2026-12-06 14:23:21 \(×40 since 2026-12-06 14:20:06\)\s+SENDING → SENDING\s+rescheduled\s+recovery job \(last send pending\)\s+last send still in the outbox$/);
    expect(lines.slice(-2)).toEqual(["message pay-43 is SENDING", "older entries: --before 42"]);
    const task = taskLineageTable({ taskId: "T-2", taskNo: "T202612060002", status: "FINISHED_PENDING_CALLBACK", entries: [], next: 7 }).split("\n");
    expect(task.at(-1)).toBe("older entries: --before 7");
  });
});
