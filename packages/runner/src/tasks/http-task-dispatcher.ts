import { errorMessage, MsgxError } from "@msgx/core";
import { type CancelAnswer, type DispatchAnswer, type TaskDispatcher, type TaskRecord } from "@msgx/tasks";
import { postJson, PostTimeoutError, type OutgoingCallOptions } from "../http/post-json.js";

/** How one call to the executing system ended, for `msgx_task_dispatch_total{outcome}`. */
export type DispatchCallOutcome = "accepted" | "refused" | "failed" | "outage" | "cancelled" | "too-late" | "cancel-failed";

/**
 * `url`: the executing system's task API (`/tasks` and `/tasks/<externalTaskNo>/cancel` are under
 * it); a call not answered within `timeoutMs` is an outage (aborted, no attempt spent).
 */
export type HttpTaskDispatcherOptions = OutgoingCallOptions<DispatchCallOutcome>;

/** Statuses of the 4xx family that say "not now", not "never": a transient failure, like a 5xx. */
const TRANSIENT_4XX = new Set([408, 425, 429]);
/** The external system's text kept in a reason (`dispatchError`, the log). */
const REASON_CHARS = 500;

/** What the executing system receives for a dispatch (docs/task-routing.md "Hosted by the msgx runner"). */
export function dispatchRequestBody(task: TaskRecord): Record<string, unknown> {
  return {
    taskId: task.taskId,
    taskNo: task.taskNo,
    externalSystem: task.externalSystem,
    externalTaskType: task.externalTaskType,
    bizType: task.bizType,
    bizId: task.bizId,
    startPointCode: task.startPointCode,
    endPointCode: task.endPointCode,
    vehicleCode: task.vehicleCode,
    payload: task.payload,
  };
}

/**
 * The `TaskDispatcher` over HTTP (the seed's `AcsTaskDispatcher`):
 * - dispatch: `POST <url>/tasks` with {@link dispatchRequestBody} and `Idempotency-Key: <taskId>`;
 *   `200`/`201` `{"externalTaskNo": "…"}` is accepted; any other 4xx (but 408, 425, 429) is a
 *   permanent refusal whose reason is the answer's body; a 5xx, a 408/425/429 or a 2xx without an
 *   `externalTaskNo` is a transient failure;
 * - cancel: `POST <url>/tasks/<externalTaskNo>/cancel` `{taskId, reason}`; `200` cancelled, `409`
 *   `{"status":"FINISHED"}` too late, anything else failed;
 * - a refused connection, a reset, no answer within `timeoutMs` or an aborted signal throws
 *   `MsgxError("DEPENDENCY_UNAVAILABLE")`: the executing system gave no answer, so no attempt is spent.
 */
export function httpTaskDispatcher(options: HttpTaskDispatcherOptions): TaskDispatcher {
  const observe = options.observe ?? (() => undefined);
  const base = options.url.replace(/\/+$/, "");

  /** POSTs `body` to `path`; the status and text of the answer, or the outage thrown. */
  const post = async (path: string, body: unknown, headers: Record<string, string>, signal?: AbortSignal): Promise<{ status: number; text: string }> => {
    try {
      return await postJson(`${base}${path}`, body, { token: options.token, headers, timeoutMs: options.timeoutMs, signal, fetch: options.fetch });
    } catch (e) {
      observe("outage");
      const why = e instanceof PostTimeoutError ? e.message : signal?.aborted ? "the call was aborted" : errorMessage(e);
      throw new MsgxError("DEPENDENCY_UNAVAILABLE", `executing system ${path.startsWith("/tasks/") ? "cancel" : "dispatch"} call failed: ${why}`, { cause: e });
    }
  };
  const field = (text: string, name: string): unknown => {
    try {
      return (JSON.parse(text) as Record<string, unknown> | null)?.[name];
    } catch {
      return undefined;
    }
  };
  const reasonOf = (status: number, text: string): string => `HTTP ${status}: ${text.slice(0, REASON_CHARS)}`;

  return {
    async dispatch(task, signal): Promise<DispatchAnswer> {
      const { status, text } = await post("/tasks", dispatchRequestBody(task), { "idempotency-key": task.taskId }, signal);
      const externalTaskNo = field(text, "externalTaskNo");
      let answer: DispatchAnswer;
      if ((status === 200 || status === 201) && typeof externalTaskNo === "string" && externalTaskNo !== "") answer = { kind: "accepted", externalTaskNo };
      else if (status >= 400 && status < 500 && !TRANSIENT_4XX.has(status)) answer = { kind: "refused", reason: reasonOf(status, text) };
      else answer = { kind: "failed", reason: status < 300 ? `HTTP ${status} without an externalTaskNo: ${text.slice(0, REASON_CHARS)}` : reasonOf(status, text) };
      observe(answer.kind);
      return answer;
    },
    async cancel(task, reason, signal): Promise<CancelAnswer> {
      const no = task.externalTaskNo ?? task.taskId;
      const { status, text } = await post(`/tasks/${encodeURIComponent(no)}/cancel`, { taskId: task.taskId, reason }, { "idempotency-key": `${task.taskId}:cancel` }, signal);
      let answer: CancelAnswer;
      if (status === 200) answer = { kind: "cancelled" };
      else if (status === 409 && field(text, "status") === "FINISHED") answer = { kind: "too-late", status: "FINISHED" };
      else answer = { kind: "failed", reason: reasonOf(status, text) };
      observe(answer.kind === "failed" ? "cancel-failed" : answer.kind);
      return answer;
    },
  };
}
