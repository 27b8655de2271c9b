/**
 * The task-service e2e suite's cast, each its own Node process: the owner service (owner.mjs, on the
 * built msgx SDK) and the executing system (executing-system.mjs, node:http and fetch, no msgx code).
 * This file only spawns them, steers them over HTTP and reads what they print; plus the test's own
 * reads of the task service's API (`/task/v1`, with fetch).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { eventually } from "../runner-process.js";
import { spawnScript as spawnProcess, stopScript, type ScriptProcess } from "../script-process.js";

const script = (name: string) => fileURLToPath(new URL(`./${name}`, import.meta.url));

/** The task service's bearer token the suite configures (`tasks.token`). */
export const TASK_TOKEN = "task-e2e-token-0123456789";

type Child = ScriptProcess;

const spawnScript = (name: string, args: readonly string[]): Child => spawnProcess(script(name), args);
const stopChild = (c: Child): Promise<void> => stopScript(c, 10_000);

async function waitFor<T>(c: Child, what: string, probe: () => T | undefined, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (c.child.exitCode !== null) throw new Error(`${what}: the process exited ${c.child.exitCode}:\n${c.output()}`);
    if (Date.now() > deadline) throw new Error(`${what}: timed out:\n${c.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface AcsCall {
  readonly op: "dispatch" | "cancel";
  readonly taskId: string;
  readonly externalTaskNo: string | null;
  /** The HTTP status answered; 0 when the connection was dropped unanswered. */
  readonly status: number;
  readonly at: number;
  readonly idempotencyKey: string | null;
  readonly auth: string | null;
  readonly body: Record<string, any>;
}

export interface FeedbackAnswer {
  /** The task service's HTTP status and body for the feedback the executing system posted. */
  readonly status: number;
  readonly body: any;
  readonly feedback: { readonly externalEventId: string; readonly status: string };
}

export interface ExecutingSystem {
  /** `http://127.0.0.1:<port>`: the task service's `tasks.dispatcher.url`. */
  readonly url: string;
  control(body: { runner?: string; unavailable?: Record<string, boolean>; refused?: Record<string, string>; dropped?: Record<string, boolean> }): Promise<void>;
  /** Makes the executing system post a feedback for `taskId` to the task service; its answer. */
  report(taskId: string, status: "EXECUTING" | "FINISHED" | "CANCELLED", extra?: { progress?: string; message?: string }): Promise<FeedbackAnswer>;
  /** The executing system finished the task on its own and has not reported it yet. */
  finishLocally(taskId: string): Promise<void>;
  calls(): Promise<AcsCall[]>;
  stop(): Promise<void>;
}

export async function startExecutingSystem(token: string = TASK_TOKEN): Promise<ExecutingSystem> {
  const c = spawnScript("executing-system.mjs", ["--token", token]);
  const url = await waitFor(c, "executing system start", () => /executing system listening on (http:\/\/\S+)/.exec(c.output())?.[1], 15_000);
  const post = async (path: string, body: unknown) => {
    const res = await fetch(new URL(path, url), { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const answer = await res.json();
    if (res.status !== 200) throw new Error(`executing system ${path}: ${res.status} ${JSON.stringify(answer)}`);
    return answer;
  };
  return {
    url,
    control: async (body) => void (await post("/control", body)),
    report: async (taskId, status, extra = {}) => (await post("/control/report", { taskId, status, ...extra })) as FeedbackAnswer,
    finishLocally: async (taskId) => void (await post("/control/finish-locally", { taskId })),
    calls: async () => (await (await fetch(new URL("/calls", url))).json()) as AcsCall[],
    stop: () => stopChild(c),
  };
}

export interface OwnerStep {
  readonly step: { readonly did: string; readonly eventId?: string; readonly reason?: string };
  /** `value`: the record value as read from the topic (JSON text; null for a record without one). */
  readonly record: { readonly key: string | null; readonly eventType: string | null; readonly headers: Readonly<Record<string, string>>; readonly value: string | null };
}

export interface Owner {
  /** Every record the owner's consumer handled, in order. */
  steps(): OwnerStep[];
  /** The steps of one task (the record key). */
  of(taskId: string): OwnerStep[];
  /** The callbacks it lost on purpose (`loseFirstCallbackOf`). */
  lost(): { readonly taskId: string; readonly eventId: string; readonly result: string }[];
  stop(): Promise<void>;
  readonly output: () => string;
}

export interface OwnerOptions {
  readonly pgUrl: string;
  /** The owner's own schema (its own database in production). */
  readonly schema: string;
  readonly brokers: string;
  readonly topicPattern: string;
  readonly group: string;
  readonly owner: string;
  /** The task service (callbacks go to `<runner>/task/v1/callbacks`). */
  readonly runner: string;
  readonly maxAttempts?: number;
  /** The first callback of a task whose id ends with this is lost on the way (see owner.mjs). */
  readonly loseFirstCallbackOf?: string;
}

/** Starts owner.mjs; resolves once its consumer group runs on its topic. */
export async function startOwner(o: OwnerOptions): Promise<Owner> {
  const c = spawnScript("owner.mjs", [
    ...["--pg", o.pgUrl, "--schema", o.schema, "--brokers", o.brokers, "--topic-pattern", o.topicPattern],
    ...["--group", o.group, "--owner", o.owner, "--runner", o.runner, "--token", TASK_TOKEN, "--max-attempts", String(o.maxAttempts ?? 3)],
    ...(o.loseFirstCallbackOf === undefined ? [] : ["--lose-first-callback", o.loseFirstCallbackOf]),
  ]);
  await waitFor(c, "owner start", () => (c.lines.some((l) => typeof l === "object" && l !== null && "ready" in l) ? true : undefined), 60_000);
  const steps = () => c.lines.filter((l): l is OwnerStep => typeof l === "object" && l !== null && "step" in l);
  const lost = () => c.lines.flatMap((l) => (typeof l === "object" && l !== null && "lost" in l ? [(l as { lost: ReturnType<Owner["lost"]>[number] }).lost] : []));
  return { steps, of: (taskId) => steps().filter((s) => s.record.key === taskId), lost, stop: () => stopChild(c), output: c.output };
}

export interface ApiAnswer {
  readonly status: number;
  readonly body: any;
}

/** One call of the task service's API (`/task/v1`), with the suite's token unless told otherwise. */
export async function taskApi(url: string, method: "GET" | "POST", path: string, body?: unknown, token: string | null = TASK_TOKEN): Promise<ApiAnswer> {
  const res = await fetch(new URL(path, url), {
    method,
    headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...(token === null ? {} : { authorization: `Bearer ${token}` }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON: kept as text for the assertion message.
  }
  return { status: res.status, body: parsed };
}

/** The task service's view of a task (`GET /task/v1/tasks/<id>`), undefined when 404. */
export async function getTask(url: string, taskId: string): Promise<Record<string, any> | undefined> {
  const { status, body } = await taskApi(url, "GET", `/task/v1/tasks/${encodeURIComponent(taskId)}`);
  if (status === 404) return undefined;
  const task = body?.task ?? body;
  if (status !== 200 || typeof task?.status !== "string") throw new Error(`GET task ${taskId}: ${status} ${JSON.stringify(body)}`);
  return task;
}

/** Ends a task as the suites' callers do: `cancel` it (TASK_CANCELLED) or report it FINISHED as its executing system (TASK_FINISHED); answered 200. */
export async function endTask(url: string, taskId: string, how: "cancel" | "finish"): Promise<ApiAnswer> {
  return how === "cancel"
    ? taskApi(url, "POST", `/task/v1/tasks/${taskId}/cancel`, { reason: "人工取消", requestId: `${taskId}-cancel` })
    : taskApi(url, "POST", `/task/v1/tasks/${taskId}/feedback`, { externalEventId: `acs-${taskId}`, status: "FINISHED" });
}

/** Waits until the task's status is `want` (after its owner's callback); a timeout's message carries `context()` (the processes' output). */
export async function awaitTaskStatus(url: string, taskId: string, want: string, context: () => string, timeoutMs = 45_000): Promise<void> {
  await eventually(async () => ((await getTask(url, taskId))?.status === want ? true : undefined), timeoutMs, `${taskId} ${want} after its owner's callback`).catch((e: unknown) => {
    throw new Error(`${String(e)}\n${context()}`);
  });
}

/** Writes `<dir>/msgx.json` hosting the task service (`tasks.enabled`, the suite's token) with `tasks` on top; its path. */
export function writeTaskConfig(dir: string, tasks: Record<string, unknown>): string {
  const config = join(dir, "msgx.json");
  writeFileSync(config, JSON.stringify({ tasks: { enabled: true, token: TASK_TOKEN, ...tasks } }));
  return config;
}

/** One line test/task-service/plain-owner.mjs prints per record it read. */
export interface PlainOwnerDelivery {
  readonly record: { readonly topic: string; readonly key: string | null; readonly headers: Record<string, string | null>; readonly value: Record<string, any> | null };
  readonly handled: boolean;
  /** The callback's HTTP status ("sent" on a result topic); null for events that expect none. */
  readonly callback: number | string | null;
}

/** What a plain-owner.mjs process printed per record, in order (none before it started). */
export const plainOwnerDeliveries = (owner: ScriptProcess | undefined): PlainOwnerDelivery[] =>
  (owner?.lines ?? []).filter((l): l is PlainOwnerDelivery => typeof l === "object" && l !== null && "record" in l);
