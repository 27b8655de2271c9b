import { beforeEach, describe, expect, it } from "vitest";
import { evolveTask } from "./task-machine.js";
import { TASK_STATUSES, TaskStatus, type TaskRecord } from "./task-record.js";
import { TaskService } from "./task-service.js";
import type { TaskStore } from "./task-store.js";
import { clock, feedbackEntry, sampleNewTask, T0, numberedTask } from "./task-store-contract-fixtures.js";

/**
 * The `TaskStore` contract's reads: the listing filters and the jobs' probes (dispatch, watchdog,
 * purge, counts). Registered by `describeTaskStoreContract` inside its describe, whose beforeEach
 * opens the fresh store `current()` returns.
 */
export function describeTaskStoreQueries(current: () => TaskStore): void {
  describe("queries", () => {
    let store: TaskStore;
    beforeEach(() => {
      store = current();
    });

    const insert = async (task: TaskRecord): Promise<boolean> => store.transaction((tx) => tx.insertTask(task));

    it("list filters by status, owner, updatedBefore and afterTaskId, ascending by taskId, at most limit", async () => {
      for (const [id, owner, at] of [
        ["T-b", "LMS", T0 + 2],
        ["T-a", "LMS", T0 + 1],
        ["T-c", "WMS", T0 + 3],
        ["T-d", "LMS", T0 + 4],
      ] as const) {
        await insert(numberedTask(sampleNewTask(id, { ownerService: owner }), at));
      }
      const d = (await store.get("T-d"))!;
      await store.transaction((tx) => tx.updateTask(evolveTask(d, { type: "dispatched", externalTaskNo: "X" }, T0 + 10)));
      const ids = (tasks: readonly TaskRecord[]) => tasks.map((t) => t.taskId);
      expect(ids(await store.list({}))).toEqual(["T-a", "T-b", "T-c", "T-d"]);
      expect(ids(await store.list({ ownerService: "LMS" }))).toEqual(["T-a", "T-b", "T-d"]);
      expect(ids(await store.list({ statuses: [TaskStatus.CREATED] }))).toEqual(["T-a", "T-b", "T-c"]);
      expect(ids(await store.list({ updatedBefore: T0 + 2 }))).toEqual(["T-a", "T-b"]);
      expect(ids(await store.list({ afterTaskId: "T-b", limit: 1 }))).toEqual(["T-c"]);
    });

    it("dueForDispatch: only CREATED tasks waiting for a dispatch and due, earliest first, at most limit", async () => {
      await insert(numberedTask(sampleNewTask("D-late"), T0, T0 + 50));
      await insert(numberedTask(sampleNewTask("D-b"), T0, T0 + 10));
      await insert(numberedTask(sampleNewTask("D-a"), T0, T0 + 10));
      await insert(numberedTask(sampleNewTask("D-manual"), T0, null));
      await insert(numberedTask(sampleNewTask("D-future"), T0, T0 + 10_000));
      const gone = numberedTask(sampleNewTask("D-done"), T0, T0);
      await insert(gone);
      await store.transaction((tx) => tx.updateTask(evolveTask(gone, { type: "executing" }, T0 + 1)));
      const ids = (tasks: readonly TaskRecord[]) => tasks.map((t) => t.taskId);
      expect(ids(await store.dueForDispatch(T0 + 100, 10))).toEqual(["D-a", "D-b", "D-late"]);
      expect(ids(await store.dueForDispatch(T0 + 100, 2))).toEqual(["D-a", "D-b"]);
      expect(ids(await store.dueForDispatch(T0 + 10, 10))).toEqual(["D-a", "D-b"]);
      expect(await store.dueForDispatch(T0 + 9, 10)).toEqual([]);
    });

    it("stalePendingCallbacks: pending tasks unchanged since updatedBefore and not alerted since alertedBefore, oldest first", async () => {
      const pendingAt = async (id: string, at: number, alertAt: number | null) => {
        const t = numberedTask(sampleNewTask(id), T0);
        await insert(t);
        let next = evolveTask(t, { type: "finished", eventId: `${id}#2`, reason: null }, at);
        await store.transaction((tx) => tx.updateTask(next));
        if (alertAt !== null) {
          next = evolveTask(next, { type: "callbackRedelivered" }, alertAt);
          await store.transaction((tx) => tx.updateTask(next));
        }
      };
      await pendingAt("P-new", T0 + 5_000, null);
      await pendingAt("P-old", T0 + 1_000, null);
      await pendingAt("P-alerted", T0 + 500, T0 + 2_000);
      await insert(numberedTask(sampleNewTask("P-created"), T0));
      const ids = (tasks: readonly TaskRecord[]) => tasks.map((t) => t.taskId);
      expect(ids(await store.stalePendingCallbacks(T0 + 10_000, T0 + 10_000, 10))).toEqual(["P-old", "P-alerted", "P-new"]);
      expect(ids(await store.stalePendingCallbacks(T0 + 3_000, T0 + 1_000, 10))).toEqual(["P-old"]);
      expect(ids(await store.stalePendingCallbacks(T0 + 3_000, T0 + 2_000, 1))).toEqual(["P-old"]);
    });

    it("purgeFinished deletes only old FINISHED / CANCELLED / FAILED tasks with their log rows, oldest first, at most limit", async () => {
      const service = new TaskService({ store, clock });
      const finish = async (id: string, at: number, status: "FINISHED" | "CANCELLED" | "PENDING" | "FAILED") => {
        const t = numberedTask(sampleNewTask(id), T0);
        await insert(t);
        if (status === "FAILED") {
          await store.transaction((tx) => tx.updateTask(evolveTask(t, { type: "dispatchRefused", reason: "no" }, at)));
          return;
        }
        const pending = evolveTask(t, { type: status === "CANCELLED" ? "cancelled" : "finished", eventId: `${id}#2`, reason: null }, at);
        await store.transaction(async (tx) => {
          await tx.updateTask(pending);
          await tx.insertFeedback(feedbackEntry(id, "E", { eventId: `${id}#2`, status: status === "CANCELLED" ? "CANCELLED" : "FINISHED" }));
        });
        if (status === "PENDING") return;
        await store.transaction(async (tx) => {
          await tx.updateTask(evolveTask(pending, { type: "callbackSucceeded" }, at));
          await tx.insertCallback({ taskId: id, eventId: `${id}#2`, result: "SUCCESS", message: null, outcome: "APPLIED", reason: null, receivedAt: at });
        });
      };
      await finish("X-fin-old", T0 + 1, "FINISHED");
      await finish("X-can-old", T0 + 2, "CANCELLED");
      await finish("X-fail-old", T0 + 3, "FAILED");
      await finish("X-pending-old", T0 + 1, "PENDING");
      await finish("X-fin-new", T0 + 100, "FINISHED");
      await insert(numberedTask(sampleNewTask("X-created"), T0));
      expect(await store.purgeFinished(T0 + 50, 0)).toBe(0);
      expect(await store.purgeFinished(T0 + 50, Number.NaN)).toBe(0);
      expect(await store.purgeFinished(T0 + 50, 1.9)).toBe(1);
      expect(await store.get("X-fin-old")).toBeUndefined();
      expect(await store.feedback("X-fin-old")).toEqual([]);
      expect(await store.callbacks("X-fin-old")).toEqual([]);
      expect(await store.purgeFinished(T0 + 50, 10)).toBe(2);
      expect(await store.purgeFinished(T0 + 50, 10)).toBe(0);
      const left = (await store.list({})).map((t) => t.taskId);
      expect(left).toEqual(["X-created", "X-fin-new", "X-pending-old"]);
      expect(await store.feedback("X-pending-old")).toHaveLength(1);
      expect(await store.purgeFinished(T0 + 100, 10)).toBe(0);
      expect(await service.get("X-fin-new")).toBeDefined();
    });

    it("countByStatus counts the stored tasks per status, every status present", async () => {
      expect(Object.values(await store.countByStatus()).every((n) => n === 0)).toBe(true);
      const a = numberedTask(sampleNewTask("C-a"), T0);
      await insert(a);
      await insert(numberedTask(sampleNewTask("C-b"), T0));
      await store.transaction((tx) => tx.updateTask(evolveTask(a, { type: "dispatchRefused", reason: "no" }, T0 + 1)));
      const counts = await store.countByStatus();
      expect(counts).toMatchObject({ CREATED: 1, FAILED: 1, DISPATCHED: 0, FINISHED: 0 });
      expect(Object.keys(counts).sort()).toEqual([...TASK_STATUSES].sort());
    });

    it("list filters by handlerCode, taskIds and callbackFailed", async () => {
      await insert(numberedTask(sampleNewTask("L-1"), T0));
      await insert(numberedTask(sampleNewTask("L-2", { handlerCode: "LMS_OTHER" }), T0));
      const t3 = numberedTask(sampleNewTask("L-3"), T0);
      await insert(t3);
      const p3 = evolveTask(t3, { type: "finished", eventId: "L-3#2", reason: null }, T0 + 1);
      await store.transaction((tx) => tx.updateTask(p3));
      await store.transaction((tx) => tx.updateTask(evolveTask(p3, { type: "callbackFailed", error: "dead" }, T0 + 2)));
      const ids = (tasks: readonly TaskRecord[]) => tasks.map((t) => t.taskId);
      expect(ids(await store.list({ handlerCode: "LMS_OTHER" }))).toEqual(["L-2"]);
      expect(ids(await store.list({ taskIds: ["L-3", "L-1", "nope"] }))).toEqual(["L-1", "L-3"]);
      expect(ids(await store.list({ callbackFailed: true }))).toEqual(["L-3"]);
      expect(ids(await store.list({ callbackFailed: false, handlerCode: "LMS_STOCK_AREA_CALL_TUBE" }))).toEqual(["L-1"]);
    });
  });
}
