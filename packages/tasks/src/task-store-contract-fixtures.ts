import { expect } from "vitest";
import { isMsgxError, type Clock, type OutboxEvent } from "@msgx/core";
import type { TaskFeedbackEntry } from "./task-feedback.js";
import { formatTaskNo } from "./task-no.js";
import { newTaskRecord, type NewTask, type TaskRecord } from "./task-record.js";
import type { TaskStore } from "./task-store.js";

/** One fresh, empty store per test, and a view of the outbox rows it wrote. */
export interface TaskStoreContractSubject {
  readonly store: TaskStore;
  /** Moves the leadership epoch on and returns the new one (a new leader took over). */
  bumpEpoch(): Promise<number>;
  /** Every outbox row (any status, any target), ascending by EVENT_ID. */
  outboxEvents(): Promise<readonly OutboxEvent[]>;
  close(): Promise<void>;
}

/** The contract's "now". */
export const T0 = Date.UTC(2026, 6, 13, 8, 0, 0);
/** A clock that stays at T0. */
export const clock: Clock = { now: () => T0, monotonic: () => 0 };

/** A create request with every field set (non-ASCII and nested payload included). */
export const sampleNewTask = (taskId: string, extra: Partial<NewTask> = {}): NewTask => ({
  taskId,
  ownerService: "LMS",
  handlerCode: "LMS_STOCK_AREA_CALL_TUBE",
  bizType: "STOCK_AREA_CALL_TUBE",
  bizId: `LMS-BIZ-${taskId}`,
  externalSystem: "ACS",
  externalTaskType: "3",
  startPointCode: "备货区起点",
  endPointCode: "机械手旁备货区终点",
  vehicleCode: "纸管载具号-7",
  payload: { to_material: "A,B,C", product_area: "BLK", nested: { n: 1, list: [1, "二", null] } },
  ...extra,
});

let lastFixtureSeq = 0;
/**
 * `newTaskRecord` under a number no other call of this process gives (day 1999-01-01, so never
 * one the contract's own creates, on T0's day, take): stores refuse a taken task number.
 */
export const numberedTask = (input: NewTask, now: number, dispatchAt: number | null = null): TaskRecord =>
  newTaskRecord(input, now, formatTaskNo("19990101", ++lastFixtureSeq), dispatchAt);

/** A feedback log row (APPLIED FINISHED at T0 unless `extra` says otherwise). */
export const feedbackEntry = (taskId: string, externalEventId: string, extra: Partial<TaskFeedbackEntry> = {}): TaskFeedbackEntry => ({
  taskId,
  externalEventId,
  status: "FINISHED",
  outcome: "APPLIED",
  reason: null,
  eventId: `${taskId}#2`,
  receivedAt: T0,
  ...extra,
});

/** Awaits `p` and expects it to fail with a MsgxError of one of `kinds`. */
export const expectMsgxError = async (p: Promise<unknown>, kinds: readonly string[]): Promise<void> => {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(isMsgxError(e), `expected a MsgxError, got ${String(e)}`).toBe(true);
  if (isMsgxError(e)) expect(kinds).toContain(e.kind);
};
