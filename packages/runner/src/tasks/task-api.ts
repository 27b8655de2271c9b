import { PENDING_CALLBACK_STATUSES, TaskCallbackOutcome, type NewTask, type TaskCallback, type TaskCallbackEntry, type TaskCancelAnswer, type TaskCancelRequest, type TaskFeedback, type TaskFeedbackEntry, type TaskFeedbackOutcome, type TaskHistoryPage, type TaskRecord, type TaskReplayFilter, type TaskReplayRequest, type TaskReplayResult, type TaskService, type TaskStatus, type TaskStore } from "@msgx/tasks";
import type { CursorPage, LineageQuery } from "@msgx/core";
import type { TaskMetrics } from "./task-metrics.js";

/** A task with its feedback and callback logs, oldest first (`GET /task/v1/tasks/:id`). */
export interface TaskView {
  readonly task: TaskRecord;
  readonly feedback: readonly TaskFeedbackEntry[];
  readonly callbacks: readonly TaskCallbackEntry[];
}

/** A page of tasks ascending by id; `next` is the `after` of the next page (null on the last). */
export type TaskPage = CursorPage<"tasks", TaskRecord, string>;

/** What a feedback did (the first answer again for a repeat) and the task after it. */
export interface TaskFeedbackView {
  readonly outcome: TaskFeedbackOutcome;
  readonly duplicate: boolean;
  readonly reason: string | null;
  readonly eventId: string | null;
  readonly task: TaskRecord;
}

/** What a callback did and the task after it; REJECTED is answered 409 by the route. */
export interface TaskCallbackView {
  readonly outcome: TaskCallbackOutcome;
  readonly reason: string | null;
  readonly status: TaskStatus;
}

export interface TaskListQuery {
  readonly status?: TaskStatus | undefined;
  /** Only tasks whose owner event is dead: waiting for a callback after the owner reported FAILURE (what a replay takes). */
  readonly dead?: boolean | undefined;
  /** Only tasks reported overdue (TASK_OVERDUE published) and still DISPATCHED / EXECUTING. */
  readonly overdue?: boolean | undefined;
  readonly owner?: string | undefined;
  readonly after?: string | undefined;
  readonly size: number;
}

/**
 * The task service's surface for owners and the executing system (`/task/v1`,
 * docs/task-routing.md "Hosted by the msgx runner"). Every command is idempotent; refusals throw
 * `TaskRequestError` (400 / 404 / 409 / 422 by code, `TASK_REQUEST_ERROR_HTTP_STATUS`).
 */
export interface TaskApi {
  /** Records a task (`created` false for a repeat of the same request); an owner the routing does not know is 422 UNKNOWN_OWNER. */
  create(input: NewTask): Promise<{ readonly created: boolean; readonly task: TaskRecord }>;
  get(taskId: string): Promise<TaskView | undefined>;
  /** The task numbered `taskNo` (`T202607130001`); a malformed number is 400 INVALID. */
  getByTaskNo(taskNo: string): Promise<TaskView | undefined>;
  list(query: TaskListQuery): Promise<TaskPage>;
  feedback(input: TaskFeedback): Promise<TaskFeedbackView>;
  /** The caller dispatched the task itself (no dispatcher, or `dispatch: false`). */
  dispatched(taskId: string, externalTaskNo: string): Promise<TaskRecord>;
  callback(input: TaskCallback): Promise<TaskCallbackView>;
  /** Cancels a task (in the executing system first when dispatched); 409 TOO_LATE / ILLEGAL_STATE / CANCEL_FAILED. */
  cancel(taskId: string, request: TaskCancelRequest): Promise<TaskCancelAnswer>;
  /** Replays the dead owner events of the tasks the filter selects (a dry run lists them only). */
  replay(filter: TaskReplayFilter, request: TaskReplayRequest): Promise<TaskReplayResult>;
  /**
   * The task's lineage: one page of its changes with their causes and callers, newest first, and its status now;
   * undefined for an unknown task (never created, or purged with its history). A malformed id is 400 INVALID.
   */
  lineage(taskId: string, query: LineageQuery): Promise<TaskLineage | undefined>;
}

/** `GET /admin/tasks/:taskId/lineage`: the task's status now and a page of its history, newest first. */
export interface TaskLineage extends TaskHistoryPage {
  readonly taskId: string;
  readonly taskNo: string;
  readonly status: TaskStatus;
}

export interface TaskApiDeps {
  readonly service: TaskService;
  readonly store: TaskStore;
  readonly metrics: TaskMetrics;
  /** Called after a call wrote a task event (wakes the relay). */
  readonly onEvent?: () => void;
}

/** The lineage of `taskId` (undefined for an unknown task); a malformed id throws `TaskRequestError` INVALID. */
export async function readTaskLineage(service: Pick<TaskService, "get" | "historyPage">, taskId: string, query: LineageQuery): Promise<TaskLineage | undefined> {
  const [task, page] = await Promise.all([service.get(taskId), service.historyPage(taskId, query)]);
  return task === undefined ? undefined : { taskId, taskNo: task.taskNo, status: task.status, ...page };
}

/** The API over the service in this process. */
export function directTaskApi(deps: TaskApiDeps): TaskApi {
  const { service, store, metrics } = deps;
  const view = async (task: TaskRecord | undefined): Promise<TaskView | undefined> => {
    if (task === undefined) return undefined;
    const [feedback, callbacks] = await Promise.all([store.feedback(task.taskId), store.callbacks(task.taskId)]);
    return { task, feedback, callbacks };
  };
  return {
    create: (input) => service.create(input),
    get: async (taskId) => view(await service.get(taskId)),
    getByTaskNo: async (taskNo) => view(await service.getByTaskNo(taskNo)),
    async list(query) {
      // One more than the page tells whether there is a next page without a count.
      const rows = await service.list({
        ...(query.status ? { statuses: [query.status] } : query.dead ? { statuses: PENDING_CALLBACK_STATUSES } : {}),
        ...(query.dead ? { callbackFailed: true } : {}),
        ...(query.overdue ? { overdue: true } : {}),
        ...(query.owner ? { ownerService: query.owner } : {}),
        ...(query.after ? { afterTaskId: query.after } : {}),
        limit: query.size + 1,
      });
      const tasks = rows.slice(0, query.size);
      return { tasks, next: rows.length > query.size ? tasks.at(-1)!.taskId : null };
    },
    async feedback(input) {
      const answer = await service.feedback(input);
      if (!answer.duplicate && answer.entry.eventId !== null) deps.onEvent?.();
      return { outcome: answer.entry.outcome, duplicate: answer.duplicate, reason: answer.entry.reason, eventId: answer.entry.eventId, task: answer.task };
    },
    dispatched: (taskId, externalTaskNo) => service.markDispatched(taskId, externalTaskNo),
    async callback(input) {
      const answer = await service.callback(input);
      return { outcome: answer.entry.outcome, reason: answer.entry.reason, status: answer.task.status };
    },
    async cancel(taskId, request) {
      const answer = await service.cancel(taskId, request);
      if (answer.outcome === "cancelled") deps.onEvent?.();
      return answer;
    },
    lineage: (taskId, query) => readTaskLineage(service, taskId, query),
    async replay(filter, request) {
      const result = await service.replay(filter, request);
      metrics.replayed(result.replayed.length);
      if (result.replayed.length > 0) deps.onEvent?.();
      return result;
    },
  };
}

/** Whether a callback answer is a refusal (the route answers it 409, the body still says why). */
export const callbackRefused = (view: TaskCallbackView): boolean => view.outcome === TaskCallbackOutcome.REJECTED;
