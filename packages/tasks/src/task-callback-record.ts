import { errorMessage, isMsgxError, MsgxError } from "@msgx/core";
import { TaskCallbackOutcome } from "./task-callback.js";
import { parseTaskCallbackMessage } from "./task-callback-port.js";
import { isTaskRequestError, TASK_REQUEST_ERROR_HTTP_STATUS } from "./task-request-error.js";
import type { TaskService } from "./task-service.js";

/** What became of one record of the callback result topic; every outcome but a thrown error advances the offset. */
export const TASK_CALLBACK_RECORD_OUTCOMES = ["applied", "malformed", "unknown-task", "rejected"] as const;
export type TaskCallbackRecordOutcome = (typeof TASK_CALLBACK_RECORD_OUTCOMES)[number];

export interface TaskCallbackRecordAnswer {
  readonly outcome: TaskCallbackRecordOutcome;
  /** The HTTP status `POST /task/v1/callbacks` would have answered a refusal with (404 / 409 / 400). */
  readonly status?: number;
  readonly reason?: string;
  readonly taskId?: string;
}

/**
 * Applies one result-topic record through `TaskService.callback`, the same call as the HTTP
 * callback route, and says what became of it: the `onRecord` of a result-topic consumer
 * (`runTaskCallbackConsumer` in `@msgx/adapters-kafka/tasks`; the runner's `task-callbacks` step). A record that is no callback (not JSON, not the
 * schema, a field the service refuses as malformed) is `malformed`; an unknown task `unknown-task`
 * (the route's 404); a callback the task refuses (event id mismatch, the route's 409, or any other
 * refusal of the caller) `rejected`. None of these would ever succeed on a retry, so the consumer
 * skips them. Anything else — PostgreSQL down, a stale leader's write `FENCED` — is thrown as a
 * retriable `MsgxError`: the same record is applied again and its offset is not committed meanwhile.
 */
export async function applyTaskCallbackRecord(service: Pick<TaskService, "callback">, value: string | null): Promise<TaskCallbackRecordAnswer> {
  let callback;
  try {
    callback = parseTaskCallbackMessage(value);
  } catch (e) {
    if (isMsgxError(e) && e.kind === "PROTOCOL") return { outcome: "malformed", status: 400, reason: e.message };
    throw e;
  }
  const taskId = callback.taskId;
  try {
    const answer = await service.callback(callback);
    if (answer.entry.outcome === TaskCallbackOutcome.REJECTED) return { outcome: "rejected", status: 409, reason: answer.entry.reason ?? "the callback does not match the task", taskId };
    return { outcome: "applied", taskId };
  } catch (e) {
    if (isTaskRequestError(e)) {
      const status = TASK_REQUEST_ERROR_HTTP_STATUS[e.code];
      const outcome = e.code === "NOT_FOUND" ? "unknown-task" : e.code === "INVALID" ? "malformed" : "rejected";
      return { outcome, status, reason: e.message, taskId };
    }
    // A non-retriable kind here (FENCED) still means "not applied by this write", never "bad record".
    throw new MsgxError(isMsgxError(e) ? e.kind : "DEPENDENCY_UNAVAILABLE", `task callback ${taskId} not applied: ${errorMessage(e)}`, { cause: e, retriable: true });
  }
}
