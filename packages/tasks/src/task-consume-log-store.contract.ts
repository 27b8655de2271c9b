import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { TaskCallbackStatus, TaskConsumeStatus, type TaskConsumeLogEntry, type TaskConsumeLogWrite } from "./task-consume-log.js";
import type { TaskConsumeLogStore } from "./task-consume-log-store.js";

/** One fresh, empty log per test, and a business table the handler transaction can write to. */
export interface TaskConsumeLogStoreContractSubject<Tx> {
  readonly store: TaskConsumeLogStore<Tx>;
  /** Writes a business row `key` through the handler transaction handle. */
  writeMarker(tx: Tx, key: string): Promise<void>;
  /** The committed business rows, sorted. */
  markers(): Promise<readonly string[]>;
  close(): Promise<void>;
}

const T0 = Date.UTC(2026, 6, 13, 9, 0, 0);

export const sampleTaskConsumeWrite = (eventId: string, extra: Partial<TaskConsumeLogWrite> = {}): TaskConsumeLogWrite => ({
  eventId,
  taskId: eventId.split("#")[0] ?? eventId,
  ownerService: "LMS",
  handlerCode: "LMS_SLITTER_DOWN_AGV",
  eventType: "TASK_FINISHED",
  status: TaskConsumeStatus.SUCCEEDED,
  errorMsg: null,
  attempts: 0,
  nextAttemptAt: null,
  payload: { eventId, payload: { to_material: "A,B", 中文: ["x", 1, null] } },
  deliveryEventId: "42",
  callback: true,
  at: T0,
  ...extra,
});

/**
 * The behaviour every `TaskConsumeLogStore` must show (see the port's JSDoc). The in-memory fake runs
 * it in a unit spec; the PostgreSQL store runs it against a fresh schema per test.
 */
export function describeTaskConsumeLogStoreContract<Tx>(name: string, factory: () => Promise<TaskConsumeLogStoreContractSubject<Tx>>): void {
  describe(`TaskConsumeLogStore contract: ${name}`, () => {
    let subject: TaskConsumeLogStoreContractSubject<Tx>;
    let store: TaskConsumeLogStore<Tx>;
    beforeEach(async () => {
      subject = await factory();
      store = subject.store;
    });
    afterEach(async () => {
      await subject.close();
    });

    const succeed = (write: TaskConsumeLogWrite, marker?: string) =>
      store.transaction(async (tx) => {
        expect(await tx.claim(write.eventId)).toBeUndefined();
        if (marker !== undefined) await subject.writeMarker(tx.handle, marker);
        await tx.succeed(write);
      });

    it("succeed commits the row with the business writes; callback PENDING due at once", async () => {
      expect(await store.get("T1#2")).toBeUndefined();
      const write = sampleTaskConsumeWrite("T1#2");
      await succeed(write, "stock-point-A");
      expect(await subject.markers()).toEqual(["stock-point-A"]);
      const row = await store.get("T1#2");
      expect(row).toEqual<TaskConsumeLogEntry>({
        eventId: "T1#2",
        taskId: "T1",
        ownerService: "LMS",
        handlerCode: "LMS_SLITTER_DOWN_AGV",
        eventType: "TASK_FINISHED",
        status: TaskConsumeStatus.SUCCEEDED,
        errorMsg: null,
        attempts: 0,
        nextAttemptAt: null,
        payload: write.payload,
        deliveryEventId: "42",
        callbackStatus: TaskCallbackStatus.PENDING,
        callbackAttempts: 0,
        callbackNextAt: T0,
        callbackError: null,
        createdAt: T0,
        updatedAt: T0,
      });
    });

    it("a transaction that throws commits neither the business writes nor the row", async () => {
      await expect(
        store.transaction(async (tx) => {
          await tx.claim("T2#2");
          await subject.writeMarker(tx.handle, "half-done");
          await tx.succeed(sampleTaskConsumeWrite("T2#2"));
          throw new Error("handler failed after writing");
        }),
      ).rejects.toThrow("handler failed after writing");
      expect(await subject.markers()).toEqual([]);
      expect(await store.get("T2#2")).toBeUndefined();
    });

    it("recordFailure: FAILED rows are replaced by later failures and by a success that keeps createdAt", async () => {
      const failed = sampleTaskConsumeWrite("T3#2", { status: TaskConsumeStatus.FAILED, errorMsg: "boom", attempts: 1, nextAttemptAt: T0 + 1_000, callback: true });
      const first = await store.recordFailure(failed);
      expect([first.status, first.attempts, first.nextAttemptAt, first.errorMsg, first.callbackStatus]).toEqual([TaskConsumeStatus.FAILED, 1, T0 + 1_000, "boom", null]);
      await store.recordFailure({ ...failed, attempts: 2, nextAttemptAt: T0 + 3_000, errorMsg: "boom again", at: T0 + 1_000 });
      expect((await store.get("T3#2"))?.attempts).toBe(2);
      await store.transaction(async (tx) => {
        expect((await tx.claim("T3#2"))?.status).toBe(TaskConsumeStatus.FAILED);
        await tx.succeed(sampleTaskConsumeWrite("T3#2", { attempts: 2, at: T0 + 3_000 }));
      });
      const row = (await store.get("T3#2"))!;
      expect([row.status, row.attempts, row.errorMsg, row.nextAttemptAt, row.createdAt, row.updatedAt]).toEqual([
        TaskConsumeStatus.SUCCEEDED,
        2,
        null,
        null,
        T0,
        T0 + 3_000,
      ]);
    });

    it("recordFailure never changes a SUCCEEDED or DEAD row and returns it as stored", async () => {
      await succeed(sampleTaskConsumeWrite("T4#2"));
      const after = await store.recordFailure(sampleTaskConsumeWrite("T4#2", { status: TaskConsumeStatus.DEAD, errorMsg: "late", at: T0 + 5 }));
      expect(after.status).toBe(TaskConsumeStatus.SUCCEEDED);
      const dead = await store.recordFailure(sampleTaskConsumeWrite("T5#2", { status: TaskConsumeStatus.DEAD, errorMsg: "unknown handler code", attempts: 0 }));
      expect([dead.status, dead.errorMsg, dead.callbackStatus, dead.callbackNextAt]).toEqual([TaskConsumeStatus.DEAD, "unknown handler code", TaskCallbackStatus.PENDING, T0]);
      const again = await store.recordFailure(sampleTaskConsumeWrite("T5#2", { status: TaskConsumeStatus.FAILED, errorMsg: "x", attempts: 9 }));
      expect(again).toEqual(dead);
      const silent = await store.recordFailure(sampleTaskConsumeWrite("bad:1", { status: TaskConsumeStatus.DEAD, errorMsg: "unreadable", taskId: "", callback: false, payload: "not json" }));
      expect([silent.callbackStatus, silent.payload]).toEqual([null, "not json"]);
    });

    it("claim serializes transactions on one event: the second sees the first's SUCCEEDED row", async () => {
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let claimed!: () => void;
      const firstClaimed = new Promise<void>((r) => (claimed = r));
      const seen: (string | undefined)[] = [];
      const a = store.transaction(async (tx) => {
        seen.push((await tx.claim("T6#2"))?.status);
        claimed();
        await gate;
        await subject.writeMarker(tx.handle, "once");
        await tx.succeed(sampleTaskConsumeWrite("T6#2"));
      });
      await firstClaimed;
      const b = store.transaction(async (tx) => {
        const row = await tx.claim("T6#2");
        seen.push(row?.status);
        if (row === undefined) {
          await subject.writeMarker(tx.handle, "twice");
          await tx.succeed(sampleTaskConsumeWrite("T6#2"));
        }
      });
      await new Promise((r) => setTimeout(r, 50));
      expect(seen).toEqual([undefined]);
      release();
      await Promise.all([a, b]);
      expect(seen).toEqual([undefined, TaskConsumeStatus.SUCCEEDED]);
      expect(await subject.markers()).toEqual(["once"]);
    });

    it("callbacks: due ones oldest first; defer moves them; settle ends them; settled rows never change", async () => {
      await succeed(sampleTaskConsumeWrite("A#2", { at: T0 + 20 }));
      await succeed(sampleTaskConsumeWrite("B#2", { at: T0 + 10 }));
      await store.recordFailure(sampleTaskConsumeWrite("C#2", { status: TaskConsumeStatus.DEAD, errorMsg: "dead", at: T0 + 30 }));
      await store.recordFailure(sampleTaskConsumeWrite("D#2", { status: TaskConsumeStatus.FAILED, errorMsg: "f", attempts: 1, nextAttemptAt: T0 + 99 }));
      const ids = (rows: readonly TaskConsumeLogEntry[]) => rows.map((r) => r.eventId);
      expect(ids(await store.dueCallbacks(T0 + 15, 10))).toEqual(["B#2"]);
      expect(ids(await store.dueCallbacks(T0 + 30, 10))).toEqual(["B#2", "A#2", "C#2"]);
      expect(ids(await store.dueCallbacks(T0 + 30, 2))).toEqual(["B#2", "A#2"]);
      await store.deferCallback("B#2", 1, T0 + 1_000, "task service down");
      const b = (await store.get("B#2"))!;
      expect([b.callbackStatus, b.callbackAttempts, b.callbackNextAt, b.callbackError]).toEqual([TaskCallbackStatus.PENDING, 1, T0 + 1_000, "task service down"]);
      expect(ids(await store.dueCallbacks(T0 + 30, 10))).toEqual(["A#2", "C#2"]);
      await store.settleCallback("A#2", "SENT", null, T0 + 40);
      await store.settleCallback("C#2", "REJECTED", "no such task", T0 + 40);
      expect(ids(await store.dueCallbacks(T0 + 10_000, 10))).toEqual(["B#2"]);
      const a = (await store.get("A#2"))!;
      expect([a.callbackStatus, a.callbackNextAt, a.updatedAt]).toEqual([TaskCallbackStatus.SENT, null, T0 + 40]);
      expect((await store.get("C#2"))?.callbackError).toBe("no such task");
      await store.settleCallback("A#2", "REJECTED", "late", T0 + 50);
      await store.deferCallback("A#2", 7, T0, "late");
      expect(await store.get("A#2")).toEqual(a);
      await store.settleCallback("unknown", "SENT", null, T0);
    });

    it("reopenDead: only a DEAD row becomes FAILED, attempts 0, due at once, no callback; others are returned unchanged", async () => {
      await store.recordFailure(sampleTaskConsumeWrite("R1#2", { status: TaskConsumeStatus.DEAD, errorMsg: "attempts exhausted (5)", attempts: 5, deliveryEventId: "7" }));
      await store.settleCallback("R1#2", "SENT", null, T0 + 1);
      const row = await store.reopenDead("R1#2", "replay rp-1; was DEAD: attempts exhausted (5)", "99", T0 + 60_000);
      expect(row).toEqual(await store.get("R1#2"));
      expect(row).toMatchObject({
        status: TaskConsumeStatus.FAILED,
        attempts: 0,
        nextAttemptAt: T0 + 60_000,
        errorMsg: "replay rp-1; was DEAD: attempts exhausted (5)",
        deliveryEventId: "99",
        callbackStatus: null,
        callbackAttempts: 0,
        callbackNextAt: null,
        callbackError: null,
        createdAt: T0,
        updatedAt: T0 + 60_000,
      });
      // The rerun's success replaces the reopened row like any FAILED one, with a fresh callback.
      await store.transaction(async (tx) => {
        expect((await tx.claim("R1#2"))?.status).toBe(TaskConsumeStatus.FAILED);
        await tx.succeed(sampleTaskConsumeWrite("R1#2", { deliveryEventId: "99", at: T0 + 61_000 }));
      });
      expect(await store.get("R1#2")).toMatchObject({ status: TaskConsumeStatus.SUCCEEDED, callbackStatus: TaskCallbackStatus.PENDING, callbackNextAt: T0 + 61_000 });
      const succeeded = await store.get("R1#2");
      expect(await store.reopenDead("R1#2", "replay again", "100", T0 + 70_000)).toEqual(succeeded);
      await store.recordFailure(sampleTaskConsumeWrite("R2#2", { status: TaskConsumeStatus.FAILED, errorMsg: "f", attempts: 2, nextAttemptAt: T0 + 9_000 }));
      const failed = await store.get("R2#2");
      expect(await store.reopenDead("R2#2", "replay", "100", T0 + 70_000)).toEqual(failed);
      expect(await store.reopenDead("none#1", "replay", null, T0)).toBeUndefined();
    });

    it("reopenCallback: a SENT report becomes PENDING due at `at`, its failed tries still counted; PENDING, REJECTED and no-callback rows stay", async () => {
      await succeed(sampleTaskConsumeWrite("C1#2"));
      await store.deferCallback("C1#2", 3, T0 + 8_000, "down");
      await store.settleCallback("C1#2", "SENT", null, T0 + 9_000);
      expect(await store.reopenCallback("C1#2", T0 + 600_000)).toBe(true);
      expect(await store.get("C1#2")).toMatchObject({ status: TaskConsumeStatus.SUCCEEDED, callbackStatus: TaskCallbackStatus.PENDING, callbackAttempts: 3, callbackNextAt: T0 + 600_000, callbackError: null });
      expect((await store.dueCallbacks(T0 + 600_000, 10)).map((r) => r.eventId)).toEqual(["C1#2"]);
      const pending = await store.get("C1#2");
      expect(await store.reopenCallback("C1#2", T0 + 700_000)).toBe(false);
      expect(await store.get("C1#2")).toEqual(pending);
      await store.recordFailure(sampleTaskConsumeWrite("C2#2", { status: TaskConsumeStatus.DEAD, errorMsg: "x" }));
      await store.settleCallback("C2#2", "REJECTED", "no such task", T0 + 1);
      const rejected = await store.get("C2#2");
      expect(await store.reopenCallback("C2#2", T0 + 600_000)).toBe(false);
      expect(await store.get("C2#2")).toEqual(rejected);
      await succeed(sampleTaskConsumeWrite("C3#2", { eventType: "TASK_EXECUTING", callback: false }));
      expect(await store.reopenCallback("C3#2", T0 + 600_000)).toBe(false);
      expect((await store.get("C3#2"))?.callbackStatus).toBeNull();
      expect(await store.reopenCallback("none#1", T0)).toBe(false);
    });

    it("purge deletes SUCCEEDED rows with nothing left to report, updated before the instant, oldest first, at most limit", async () => {
      const minute = 60_000;
      // Out of time order, two at one instant: the order is updatedAt, then eventId.
      for (const [id, m] of [["S4#2", 4], ["S0#2", 0], ["S3#2", 3], ["S1b#2", 1], ["S1a#2", 1]] as const) {
        await succeed(sampleTaskConsumeWrite(id, { at: T0 + m * minute }));
        await store.settleCallback(id, "SENT", null, T0 + m * minute);
      }
      await succeed(sampleTaskConsumeWrite("X2#2", { eventType: "TASK_EXECUTING", callback: false, at: T0 + 2 * minute }));
      // Kept whatever their age: a report still PENDING or REJECTED, a dead letter, a FAILED row.
      await succeed(sampleTaskConsumeWrite("P#2"));
      await store.recordFailure(sampleTaskConsumeWrite("J#2", { status: TaskConsumeStatus.DEAD, errorMsg: "x" }));
      await store.settleCallback("J#2", "SENT", null, T0);
      await succeed(sampleTaskConsumeWrite("K#2"));
      await store.settleCallback("K#2", "REJECTED", "refused", T0);
      await store.recordFailure(sampleTaskConsumeWrite("F#2", { status: TaskConsumeStatus.FAILED, errorMsg: "f", attempts: 1, nextAttemptAt: T0 }));
      for (const none of [0, -1, 0.5, Number.NaN]) expect(await store.purge(T0 + 4 * minute, none)).toBe(0);
      expect(await store.purge(T0 + 4 * minute, 2.9)).toBe(2);
      const ids = async () => (await store.list({})).map((r) => r.eventId);
      expect(await ids()).toEqual(["F#2", "J#2", "K#2", "P#2", "S1b#2", "S3#2", "S4#2", "X2#2"]);
      expect(await store.purge(T0 + 4 * minute, 10)).toBe(3);
      expect(await store.purge(T0 + 4 * minute, 10)).toBe(0);
      // S4 sits exactly at the instant (not before it): it stays.
      expect(await ids()).toEqual(["F#2", "J#2", "K#2", "P#2", "S4#2"]);
      expect(await store.purge(T0 + 100 * minute, 10)).toBe(1);
      expect(await ids()).toEqual(["F#2", "J#2", "K#2", "P#2"]);
    });

    it("list filters by status, callback status and task, ascending by eventId", async () => {
      await succeed(sampleTaskConsumeWrite("T9#3"));
      await succeed(sampleTaskConsumeWrite("T8#2"));
      await store.recordFailure(sampleTaskConsumeWrite("T7#2", { status: TaskConsumeStatus.DEAD, errorMsg: "x" }));
      await store.settleCallback("T8#2", "SENT", null, T0 + 1);
      const ids = (rows: readonly TaskConsumeLogEntry[]) => rows.map((r) => r.eventId);
      expect(ids(await store.list({}))).toEqual(["T7#2", "T8#2", "T9#3"]);
      expect(ids(await store.list({ statuses: [TaskConsumeStatus.SUCCEEDED] }))).toEqual(["T8#2", "T9#3"]);
      expect(ids(await store.list({ callbackStatuses: [TaskCallbackStatus.PENDING] }))).toEqual(["T7#2", "T9#3"]);
      expect(ids(await store.list({ taskId: "T8" }))).toEqual(["T8#2"]);
      expect(ids(await store.list({ limit: 1 }))).toEqual(["T7#2"]);
    });
  });
}
