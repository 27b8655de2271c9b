import type { Command } from "commander";
import { isTaskRequestError, TASK_STATUSES, TaskService, type TaskStatus, type TaskRecord, type TaskReplayFilter, type TaskReplayResult } from "@msgx/tasks";
import { MsgxError, systemClock } from "@msgx/core";
import { taskRouting } from "../config/tasks-schema.js";
import { createLogger } from "../logging.js";
import { directTaskApi, type TaskListQuery, type TaskPage, type TaskView } from "../tasks/task-api.js";
import { createTaskMetrics } from "../tasks/task-metrics.js";
import { adminHttp } from "./admin-http.js";
import { adminParts } from "./admin-parts.js";
import { registerTaskLineageCommand } from "./history-lineage-commands.js";
import { configFrom, remoteToken, printJson, remoteCommand, type CommonFlags, type RemoteApi } from "./common-options.js";

interface Flags extends CommonFlags {
  readonly url?: string;
  readonly token?: string;
}

/** What the commands do, over a running runner's `/task/v1` or over the task store directly. */
interface TaskCommandsApi {
  show(taskId: string): Promise<TaskView | undefined>;
  /** The same by task number (`T202607130001`). */
  showByNo(taskNo: string): Promise<TaskView | undefined>;
  replay(filter: TaskReplayFilter, by: string, reason: string, dryRun: boolean): Promise<TaskReplayResult>;
  /** One page of tasks, ascending by id (`/task/v1/tasks`). */
  list(query: TaskListQuery): Promise<TaskPage>;
}

/** `GET /task/v1/tasks`'s query string for `query`. */
function listQueryString(query: TaskListQuery): string {
  const q = new URLSearchParams({ size: String(query.size) });
  if (query.status) q.set("status", query.status);
  if (query.owner) q.set("owner", query.owner);
  if (query.after) q.set("after", query.after);
  if (query.overdue) q.set("overdue", "true");
  return q.toString();
}

async function withApi(flags: Flags, fn: (api: TaskCommandsApi) => Promise<unknown>): Promise<void> {
  const config = configFrom(flags);
  if (flags.url) {
    const call = adminHttp(flags.url, remoteToken(flags, config.tasks.token ?? config.http.token));
    printJson(
      await fn({
        show: (id) => call<TaskView>("GET", `/task/v1/tasks/${encodeURIComponent(id)}`),
        showByNo: (no) => call<TaskView>("GET", `/task/v1/tasks/by-no/${encodeURIComponent(no)}`),
        replay: async (filter, by, reason, dryRun) => (await call<TaskReplayResult>("POST", "/task/v1/replay", { ...filter, by, reason, dryRun }))!,
        list: async (query) => (await call<TaskPage>("GET", `/task/v1/tasks?${listQueryString(query)}`))!,
      }),
    );
    return;
  }
  const parts = await adminParts(config, createLogger("warn", 2));
  try {
    // No dispatcher: neither command calls the executing system. A replay's events wait in the outbox for the running runner's relay.
    const service = new TaskService({ store: parts.tasks, clock: systemClock, routing: taskRouting(config.tasks) });
    const view = async (task: TaskRecord | undefined): Promise<TaskView | undefined> =>
      task && { task, feedback: await parts.tasks.feedback(task.taskId), callbacks: await parts.tasks.callbacks(task.taskId) };
    printJson(
      await fn({
        show: async (id) => view(await service.get(id)),
        showByNo: async (no) => view(await service.getByTaskNo(no)),
        replay: (filter, by, reason, dryRun) => service.replay(filter, { by, reason, dryRun }),
        list: (query) => directTaskApi({ service, store: parts.tasks, metrics: createTaskMetrics(systemClock) }).list(query),
      }),
    );
  } catch (e) {
    // The service's refusals (bad filter, unknown owner) are the operator's mistake, as over HTTP (4xx): exit 2.
    if (isTaskRequestError(e)) throw new MsgxError("CONFIG", e.message, { retriable: false });
    throw e;
  } finally {
    await parts.close();
  }
}

const collect = (value: string, previous: string[]) => [...previous, value];

/** `--url` reaches a running runner's task API, behind `tasks.token`. */
const TASK_API: RemoteApi = { api: "/task/v1", tokenEnv: "MSGX_TASKS_TOKEN, else MSGX_HTTP_TOKEN" };

const sub = (parent: Command, name: string, description: string): Command => remoteCommand(parent, name, description, TASK_API);

/** `msgx tasks …`: the operator surface of the hosted task service (docs/task-routing.md). */
export function registerTasksCommands(program: Command): void {
  const tasks = program.command("tasks").description("task-event routing: list and show tasks, their lineage, replay dead owner events");
  sub(tasks, "list", "tasks ascending by id, one page (--overdue: those reported past their deadline or heartbeat)")
    .option("--overdue", "only DISPATCHED / EXECUTING tasks reported overdue (TASK_OVERDUE sent)")
    .option("--status <status>", "only tasks in this status")
    .option("--owner <owner>", "only this owner service's tasks")
    .option("--after <taskId>", "the page after this task id (the previous answer's next)")
    .option("--size <n>", "tasks per page, 1 to 500", "20")
    .action((flags: Flags & { overdue?: boolean; status?: string; owner?: string; after?: string; size: string }) =>
      withApi(flags, (api) => {
        const size = Number(flags.size);
        if (!Number.isSafeInteger(size) || size < 1 || size > 500) throw new MsgxError("CONFIG", `--size must be an integer from 1 to 500: ${flags.size}`, { retriable: false });
        const status = flags.status;
        if (status !== undefined && !(TASK_STATUSES as readonly string[]).includes(status)) throw new MsgxError("CONFIG", `--status must be one of ${TASK_STATUSES.join(", ")}: ${status}`, { retriable: false });
        return api.list({ size, overdue: flags.overdue === true, ...(status ? { status: status as TaskStatus } : {}), ...(flags.owner ? { owner: flags.owner } : {}), ...(flags.after ? { after: flags.after } : {}) });
      }),
    );
  sub(tasks, "show", "one task with its feedback and callback logs")
    .argument("<taskId>", "the task's id (or, with --by-no, its number)")
    .option("--by-no", "the argument is the task number (T202607130001), not the task id")
    .action((id: string, flags: Flags & { byNo?: boolean }) =>
      withApi(flags, async (api) => (flags.byNo ? await api.showByNo(id) : await api.show(id)) ?? { error: flags.byNo ? `no task numbered ${id}` : `no task ${id}` }),
    );
  registerTaskLineageCommand(tasks);
  sub(tasks, "replay", "publish again the last event of tasks whose owner reported it dead (preflight with --dry-run)")
    .option("--task <taskId>", "a task to replay (repeatable)", collect, [])
    .option("--owner <owner>", "every dead event of this owner service")
    .option("--handler-code <code>", "every dead event of this handler code")
    .requiredOption("--reason <text>", "why (written to the audit row)")
    .option("--dry-run", "list what would be replayed, change nothing")
    .option("--operator <name>", "who asks (written to the audit row)", process.env["USER"] ?? "cli")
    .action((flags: Flags & { task: string[]; owner?: string; handlerCode?: string; reason: string; dryRun?: boolean; operator: string }) =>
      withApi(flags, (api) => {
        const filter: TaskReplayFilter = {
          ...(flags.task.length > 0 ? { taskIds: flags.task } : {}),
          ...(flags.owner ? { owner: flags.owner } : {}),
          ...(flags.handlerCode ? { handlerCode: flags.handlerCode } : {}),
        };
        if (Object.keys(filter).length === 0) throw new MsgxError("CONFIG", "give --task, --owner or --handler-code", { retriable: false });
        return api.replay(filter, flags.operator, flags.reason, flags.dryRun === true);
      }),
    );
}
