import { MsgxError } from "@msgx/core";
import type { CancelAnswer, DispatchAnswer, TaskDispatcher } from "./task-dispatcher.js";
import type { TaskRecord } from "./task-record.js";

/** What the fake external system knows of a task it accepted. */
export interface FakeExternalTask {
  readonly externalTaskNo: string;
  status: "ACCEPTED" | "FINISHED" | "CANCELLED";
}

/** A scripted answer for the next call(s): a refusal, a transient failure, an outage, or an answer that is lost. */
export type ScriptedDispatchFault = "refuse" | "fail" | "outage" | "lose-answer";

/**
 * An in-memory external system behind the `TaskDispatcher` port, for tests: it accepts every task
 * (numbers `EXT-1`, `EXT-2`, … in order of first acceptance) unless scripted otherwise. Scripts:
 * `down` (every call an outage), `script(fault)` (the next call), `finish(taskId)` (the external
 * system completed the task: a cancel is then too late). `dispatches` / `cancels` record every
 * call that reached it.
 */
export class InMemoryTaskDispatcher implements TaskDispatcher {
  readonly tasks = new Map<string, FakeExternalTask>();
  readonly dispatches: string[] = [];
  readonly cancels: { readonly taskId: string; readonly reason: string }[] = [];
  /** While true, every call throws `DEPENDENCY_UNAVAILABLE` (nothing reaches the external system). */
  down = false;
  readonly #script: { readonly fault: ScriptedDispatchFault; readonly reason: string }[] = [];
  #next = 1;

  /** The next call (dispatch or cancel) answers with `fault`; several calls queue in order. */
  script(fault: ScriptedDispatchFault, reason = `scripted ${fault}`): void {
    this.#script.push({ fault, reason });
  }

  /** The external system finished the task (a cancel now answers `too-late`). */
  finish(taskId: string): void {
    const t = this.tasks.get(taskId);
    if (t !== undefined) t.status = "FINISHED";
  }

  async dispatch(task: TaskRecord, signal?: AbortSignal): Promise<DispatchAnswer> {
    const fault = this.#enter(signal);
    if (fault?.fault === "refuse") return { kind: "refused", reason: fault.reason };
    if (fault?.fault === "fail") return { kind: "failed", reason: fault.reason };
    this.dispatches.push(task.taskId);
    let held = this.tasks.get(task.taskId);
    if (held === undefined) {
      held = { externalTaskNo: `EXT-${this.#next++}`, status: "ACCEPTED" };
      this.tasks.set(task.taskId, held);
    }
    if (fault?.fault === "lose-answer") throw new MsgxError("DEPENDENCY_UNAVAILABLE", "dispatch answer lost (simulated; it was accepted)");
    return { kind: "accepted", externalTaskNo: held.externalTaskNo };
  }

  async cancel(task: TaskRecord, reason: string, signal?: AbortSignal): Promise<CancelAnswer> {
    const fault = this.#enter(signal);
    if (fault?.fault === "refuse" || fault?.fault === "fail") return { kind: "failed", reason: fault.reason };
    this.cancels.push({ taskId: task.taskId, reason });
    const held = this.tasks.get(task.taskId);
    if (held?.status === "FINISHED") return { kind: "too-late", status: "FINISHED" };
    if (held !== undefined) held.status = "CANCELLED";
    if (fault?.fault === "lose-answer") throw new MsgxError("DEPENDENCY_UNAVAILABLE", "cancel answer lost (simulated; it was cancelled)");
    return { kind: "cancelled" };
  }

  #enter(signal: AbortSignal | undefined): { readonly fault: ScriptedDispatchFault; readonly reason: string } | undefined {
    if (signal?.aborted === true) throw new MsgxError("DEPENDENCY_UNAVAILABLE", "dispatch call aborted");
    if (this.down) throw new MsgxError("DEPENDENCY_UNAVAILABLE", "external system unreachable (simulated)");
    const fault = this.#script.shift();
    if (fault?.fault === "outage") throw new MsgxError("DEPENDENCY_UNAVAILABLE", `external system unreachable (${fault.reason})`);
    return fault;
  }
}
