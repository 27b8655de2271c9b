import type { ApiCaller } from "@msgx/core";
import { taskHistoryEntry, type TaskCause } from "./task-history.js";
import type { TaskRecord } from "./task-record.js";
import type { TaskTx } from "./task-store.js";

/**
 * Writes `after` (the successor of `before`) and its history entry in `tx`: the one way a command
 * changes a stored task, so no change goes unrecorded.
 */
export async function saveTaskChange(tx: TaskTx, before: TaskRecord, after: TaskRecord, cause: TaskCause, caller: ApiCaller | null): Promise<void> {
  await tx.updateTask(after);
  await tx.appendHistory(taskHistoryEntry(before, after, cause, caller));
}

/** Inserts a new task with its first history entry; false (nothing written) when the id is taken. */
export async function saveNewTask(tx: TaskTx, task: TaskRecord, caller: ApiCaller | null): Promise<boolean> {
  if (!(await tx.insertTask(task))) return false;
  await tx.appendHistory(taskHistoryEntry(undefined, task, { kind: "create" }, caller));
  return true;
}
