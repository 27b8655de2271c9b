import { beforeEach, describe, expect, it } from "vitest";
import { evolveTask, type TaskTransition } from "./task-machine.js";
import { decideTaskOverdue } from "./task-overdue.js";
import type { TaskRecord } from "./task-record.js";
import type { TaskStore } from "./task-store.js";
import { sampleNewTask, T0, numberedTask } from "./task-store-contract-fixtures.js";

/**
 * The `TaskStore` contract for deadlines and heartbeats: the task's timeouts, progress and
 * overdue marks round-trip, and `overdueCandidates` / `list({ overdue })` find exactly what
 * `decideTaskOverdue` / `isTaskOverdue` say. Registered by `describeTaskStoreContract`.
 */
export function describeTaskStoreOverdue(current: () => TaskStore): void {
  describe("overdue", () => {
    let store: TaskStore;
    beforeEach(() => {
      store = current();
    });

    /** A task with these timeouts, created at T0 and taken through `steps` (each at its instant); the stored result. */
    const taskThrough = async (id: string, timeouts: { deadlineMs?: number; heartbeatMs?: number }, steps: readonly [TaskTransition, number][]): Promise<TaskRecord> => {
      let task: TaskRecord = { ...numberedTask(sampleNewTask(id), T0), deadlineMs: timeouts.deadlineMs ?? null, heartbeatMs: timeouts.heartbeatMs ?? null };
      await store.transaction((tx) => tx.insertTask(task));
      for (const [transition, at] of steps) {
        const next = evolveTask(task, transition, at);
        await store.transaction((tx) => tx.updateTask(next));
        task = next;
      }
      return task;
    };
    const dispatched: TaskTransition = { type: "dispatched", externalTaskNo: "ACS-1" };
    const executing: TaskTransition = { type: "executing" };
    const ids = (tasks: readonly TaskRecord[]) => tasks.map((t) => t.taskId);

    it("round-trips the timeouts, the deadline, the last progress and both overdue marks (an EXECUTING report clears the heartbeat's)", async () => {
      const steps: [TaskTransition, number][] = [
        [dispatched, T0 + 10],
        [{ type: "overdue", reason: "HEARTBEAT" }, T0 + 70],
        [{ type: "overdue", reason: "DEADLINE" }, T0 + 120],
      ];
      const marked = await taskThrough("R-1", { deadlineMs: 100, heartbeatMs: 50 }, steps);
      expect(await store.get("R-1")).toEqual(marked);
      expect(await store.countOverdue()).toEqual({ DEADLINE: 1, HEARTBEAT: 1 });
      expect([marked.deadlineAt, marked.lastProgressAt, marked.heartbeatOverdueAt, marked.deadlineOverdueAt]).toEqual([T0 + 110, T0 + 10, T0 + 70, T0 + 120]);
      const progressed = evolveTask(marked, executing, T0 + 130);
      await store.transaction((tx) => tx.updateTask(progressed));
      expect(await store.get("R-1")).toEqual(progressed);
      expect([progressed.deadlineAt, progressed.lastProgressAt, progressed.heartbeatOverdueAt, progressed.deadlineOverdueAt]).toEqual([T0 + 110, T0 + 130, null, T0 + 120]);
      expect(await store.countOverdue()).toEqual({ DEADLINE: 1, HEARTBEAT: 0 });
    });

    it("overdueCandidates: watched DISPATCHED / EXECUTING tasks with an unreported deadline or heartbeat, by id, at most limit; list({ overdue }) the marked ones", async () => {
      await taskThrough("O-deadline", { deadlineMs: 100 }, [[dispatched, T0]]);
      await taskThrough("O-heart", { heartbeatMs: 50 }, [[dispatched, T0], [executing, T0 + 20]]);
      await taskThrough("O-marked", { deadlineMs: 100 }, [[dispatched, T0], [{ type: "overdue", reason: "DEADLINE" }, T0 + 150]]);
      await taskThrough("O-rearmed", { heartbeatMs: 50 }, [[dispatched, T0], [{ type: "overdue", reason: "HEARTBEAT" }, T0 + 60], [executing, T0 + 100]]);
      await taskThrough("O-silent", { heartbeatMs: 50 }, [[dispatched, T0], [{ type: "overdue", reason: "HEARTBEAT" }, T0 + 60]]);
      await taskThrough("O-unwatched", {}, [[dispatched, T0]]);
      await taskThrough("O-created", { deadlineMs: 10, heartbeatMs: 10 }, []);
      await taskThrough("O-done", { deadlineMs: 10, heartbeatMs: 10 }, [[dispatched, T0], [{ type: "finished", eventId: "O-done#3", reason: null }, T0 + 5]]);

      expect(ids(await store.overdueCandidates(T0 + 69, 10))).toEqual([]);
      expect(ids(await store.overdueCandidates(T0 + 70, 10))).toEqual(["O-heart"]);
      expect(ids(await store.overdueCandidates(T0 + 100, 10))).toEqual(["O-deadline", "O-heart"]);
      expect(ids(await store.overdueCandidates(T0 + 200, 10))).toEqual(["O-deadline", "O-heart", "O-rearmed"]);
      const one = ids(await store.overdueCandidates(T0 + 200, 1));
      expect(one).toHaveLength(1);
      expect(["O-deadline", "O-heart", "O-rearmed"]).toContain(one[0]);
      // The store's probe and the pure rule agree on every task.
      const all = await store.list({});
      expect(ids(all.filter((t) => decideTaskOverdue(t, T0 + 200).length > 0))).toEqual(["O-deadline", "O-heart", "O-rearmed"]);

      expect(ids(await store.list({ overdue: true }))).toEqual(["O-marked", "O-silent"]);
      expect(await store.countOverdue()).toEqual({ DEADLINE: 1, HEARTBEAT: 1 });
      expect(ids(await store.list({ overdue: false }))).toEqual(["O-created", "O-deadline", "O-done", "O-heart", "O-rearmed", "O-unwatched"]);
    });
  });
}
