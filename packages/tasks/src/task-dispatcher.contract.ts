import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isMsgxError } from "@msgx/core";
import type { TaskDispatcher } from "./task-dispatcher.js";
import { newTaskRecord, type TaskRecord } from "./task-record.js";
import { sampleNewTask } from "./task-store-contract-fixtures.js";

/**
 * One fresh dispatcher per test, talking to an external system the test controls (the fake, or a
 * test server behind an HTTP dispatcher).
 */
export interface TaskDispatcherContractSubject {
  readonly dispatcher: TaskDispatcher;
  /** The external system's next answer (to a dispatch or a cancel): a permanent refusal or a transient failure. */
  scriptNext(fault: "refuse" | "fail", reason: string): Promise<void>;
  /** Makes the external system unreachable (true) or reachable again (false). */
  setDown(down: boolean): Promise<void>;
  /** The external system completes the task it accepted. */
  finish(taskId: string): Promise<void>;
  close(): Promise<void>;
}

const T0 = Date.UTC(2026, 6, 13, 8, 0, 0);
const task = (id: string): TaskRecord => newTaskRecord(sampleNewTask(id), T0, "T202607130001", T0);

const thrownKind = async (p: Promise<unknown>): Promise<string> => {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  return isMsgxError(e) ? e.kind : `not a MsgxError: ${String(e)}`;
};

/** The behaviour every `TaskDispatcher` must show (see the port's JSDoc). */
export function describeTaskDispatcherContract(name: string, factory: () => Promise<TaskDispatcherContractSubject>): void {
  describe(`TaskDispatcher contract: ${name}`, () => {
    let subject: TaskDispatcherContractSubject;
    let dispatcher: TaskDispatcher;
    beforeEach(async () => {
      subject = await factory();
      dispatcher = subject.dispatcher;
    });
    afterEach(async () => {
      await subject.close();
    });

    it("accepts a task under an external number; a repeat for the same task gets the same number, another task another", async () => {
      const first = await dispatcher.dispatch(task("T-1"));
      expect(first.kind).toBe("accepted");
      const again = await dispatcher.dispatch(task("T-1"));
      expect(again).toEqual(first);
      const other = await dispatcher.dispatch(task("T-2"));
      expect(other.kind).toBe("accepted");
      if (first.kind === "accepted" && other.kind === "accepted") {
        expect(first.externalTaskNo).not.toBe("");
        expect(other.externalTaskNo).not.toBe(first.externalTaskNo);
      }
    });

    it("a permanent refusal answers refused with the reason; a transient error answers failed; the next call is accepted", async () => {
      await subject.scriptNext("refuse", "unknown task type 99");
      const refused = await dispatcher.dispatch(task("T-3"));
      expect(refused.kind).toBe("refused");
      if (refused.kind === "refused") expect(refused.reason).toContain("unknown task type 99");
      await subject.scriptNext("fail", "ACS busy");
      const failed = await dispatcher.dispatch(task("T-3"));
      expect(failed.kind).toBe("failed");
      if (failed.kind === "failed") expect(failed.reason).toContain("ACS busy");
      expect((await dispatcher.dispatch(task("T-3"))).kind).toBe("accepted");
    });

    it("an unreachable external system throws DEPENDENCY_UNAVAILABLE (no answer); reachable again, the call is accepted", async () => {
      await subject.setDown(true);
      expect(await thrownKind(dispatcher.dispatch(task("T-4")))).toBe("DEPENDENCY_UNAVAILABLE");
      expect(await thrownKind(dispatcher.cancel(task("T-4"), "x"))).toBe("DEPENDENCY_UNAVAILABLE");
      await subject.setDown(false);
      expect((await dispatcher.dispatch(task("T-4"))).kind).toBe("accepted");
    });

    it("an aborted signal ends the call as DEPENDENCY_UNAVAILABLE", async () => {
      const controller = new AbortController();
      controller.abort();
      expect(await thrownKind(dispatcher.dispatch(task("T-5"), controller.signal))).toBe("DEPENDENCY_UNAVAILABLE");
    });

    it("cancel of an accepted task answers cancelled, and again cancelled; of a finished one too-late", async () => {
      const accepted = await dispatcher.dispatch(task("T-6"));
      const dispatched: TaskRecord = { ...task("T-6"), status: "DISPATCHED", externalTaskNo: accepted.kind === "accepted" ? accepted.externalTaskNo : null };
      expect(await dispatcher.cancel(dispatched, "人工取消")).toEqual({ kind: "cancelled" });
      expect(await dispatcher.cancel(dispatched, "人工取消")).toEqual({ kind: "cancelled" });
      const other = await dispatcher.dispatch(task("T-7"));
      await subject.finish("T-7");
      const finished: TaskRecord = { ...task("T-7"), status: "DISPATCHED", externalTaskNo: other.kind === "accepted" ? other.externalTaskNo : null };
      expect(await dispatcher.cancel(finished, "too late")).toEqual({ kind: "too-late", status: "FINISHED" });
    });

    it("cancel of a task it never accepted answers cancelled (nothing runs there)", async () => {
      expect(await dispatcher.cancel(task("T-9"), "before dispatch")).toEqual({ kind: "cancelled" });
    });

    it("a cancel the external system cannot do now answers failed with its reason", async () => {
      const accepted = await dispatcher.dispatch(task("T-8"));
      const dispatched: TaskRecord = { ...task("T-8"), status: "DISPATCHED", externalTaskNo: accepted.kind === "accepted" ? accepted.externalTaskNo : null };
      await subject.scriptNext("fail", "vehicle not reachable");
      const failed = await dispatcher.cancel(dispatched, "x");
      expect(failed.kind).toBe("failed");
      if (failed.kind === "failed") expect(failed.reason).toContain("vehicle not reachable");
    });
  });
}
