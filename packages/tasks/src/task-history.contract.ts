import fc from "fast-check";
import { expect, it } from "vitest";
import { isMsgxError, type ApiCaller } from "@msgx/core";
import { ManualClock } from "@msgx/core/fakes";
import { DispatchJob } from "./dispatch-job.js";
import { InMemoryTaskDispatcher } from "./in-memory-task-dispatcher.js";
import { statusOfHistory, taskEntryCollapsesInto } from "./task-history.js";
import { isTaskRequestError } from "./task-request-error.js";
import { TaskService } from "./task-service.js";
import type { TaskStore } from "./task-store.js";
import { sampleNewTask, T0 } from "./task-store-contract-fixtures.js";
import { TaskOverdueJob } from "./task-overdue-job.js";
import { TaskWatchdogJob } from "./task-watchdog-job.js";

const RUNS = Number(process.env["MSGX_MODEL_RUNS"] ?? 20);

/** One step of a history run, against one of two tasks. */
type Step =
  | { readonly t: "create"; readonly id: number; readonly dispatch: boolean }
  | { readonly t: "markDispatched"; readonly id: number }
  | { readonly t: "feedback"; readonly id: number; readonly status: "EXECUTING" | "FINISHED" | "CANCELLED"; readonly n: number }
  | { readonly t: "callback"; readonly id: number; readonly result: "SUCCESS" | "FAILURE" }
  | { readonly t: "cancel"; readonly id: number }
  | { readonly t: "replay"; readonly id: number }
  | { readonly t: "dispatchJob" }
  | { readonly t: "watchdog" }
  | { readonly t: "overdueJob" }
  | { readonly t: "advance"; readonly ms: number };

const id = fc.nat(1);
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ t: fc.constant("create" as const), id, dispatch: fc.boolean() }) },
  fc.record({ t: fc.constant("markDispatched" as const), id }),
  { weight: 3, arbitrary: fc.record({ t: fc.constant("feedback" as const), id, status: fc.constantFrom("EXECUTING" as const, "FINISHED" as const, "CANCELLED" as const), n: fc.nat(3) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("callback" as const), id, result: fc.constantFrom("SUCCESS" as const, "FAILURE" as const) }) },
  fc.record({ t: fc.constant("cancel" as const), id }),
  fc.record({ t: fc.constant("replay" as const), id }),
  fc.constant({ t: "dispatchJob" as const }),
  fc.constant({ t: "watchdog" as const }),
  fc.constant({ t: "overdueJob" as const }),
  fc.record({ t: fc.constant("advance" as const), ms: fc.integer({ min: 0, max: 30 * 60_000 }) }),
);

/** A run that reaches every kind of change (the random ones reach the rarer kinds seldom). */
const EVERY_KIND: Step[] = [
  { t: "create", id: 0, dispatch: true },
  { t: "dispatchJob" },
  { t: "advance", ms: 6 * 60_000 },
  { t: "overdueJob" },
  { t: "feedback", id: 0, status: "FINISHED", n: 1 },
  { t: "callback", id: 0, result: "FAILURE" },
  { t: "replay", id: 0 },
  { t: "advance", ms: 10 * 60_000 },
  { t: "watchdog" },
  { t: "create", id: 1, dispatch: false },
  { t: "markDispatched", id: 1 },
  { t: "cancel", id: 1 },
  { t: "callback", id: 1, result: "SUCCESS" },
];

/** The HTTP call of step `i`, as the runner would name it. */
const callerOf = (i: number): ApiCaller => ({ route: "POST /tasks/v1/…", requestId: `req-${i}`, remoteAddress: "10.1.2.3", userAgent: "LMS/2.0 仓储", operator: null });
const JOB_CAUSES = ["dispatch", "watchdog", "overdue"];
/** Every task is watched: a deadline of 5 min and a heartbeat of 4 min (the runs advance up to 30 min a step). */
const OVERDUE_POLICY = { default: { deadlineMs: 5 * 60_000, heartbeatMs: 4 * 60_000 } };

/**
 * The history every `TaskStore` keeps, through the service and its jobs (run inside
 * `describeTaskStoreContract`): each change writes one entry in its transaction, or folds into the
 * newest one when both are watchdog alerts (`taskEntryCollapsesInto`), whatever the sequence, and
 * the entries replay to the task's status.
 */
export function describeTaskHistoryContract(store: () => TaskStore): void {
  it("history: any sequence of commands and jobs leaves versions from 1 increasing (a run of watchdog alerts one entry), chained from → to, the last `to` the stored status; HTTP changes name their caller, job changes none", async () => {
    let run = 0;
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 25 }), async (steps) => {
        run += 1;
        const clock = new ManualClock(T0);
        const dispatcher = new InMemoryTaskDispatcher();
        let caller: ApiCaller | undefined;
        const service = new TaskService({ store: store(), clock, dispatcher, callerOf: () => caller, overduePolicy: OVERDUE_POLICY });
        // Batches large enough for the tasks earlier runs left in the store too.
        const dispatchJob = new DispatchJob({ store: store(), dispatcher, clock }, { batchSize: 1_000 });
        const watchdog = new TaskWatchdogJob({ store: store(), clock }, { pendingCallbackAlertMs: 60_000, pendingCallbackRetryMs: 60_000, batchSize: 1_000 });
        const overdueJob = new TaskOverdueJob({ store: store(), clock }, { batchSize: 1_000 });
        const taskId = (n: number): string => `R${run}-T${n}`;
        for (const [i, step] of steps.entries()) {
          caller = step.t === "dispatchJob" || step.t === "watchdog" || step.t === "overdueJob" || step.t === "advance" ? undefined : callerOf(i);
          try {
            await apply(step);
          } catch (e) {
            if (!isTaskRequestError(e) && !isMsgxError(e)) throw e;
          }
        }
        async function apply(step: Step): Promise<unknown> {
          switch (step.t) {
            case "create":
              return service.create({ ...sampleNewTask(taskId(step.id)), dispatch: step.dispatch });
            case "markDispatched":
              return service.markDispatched(taskId(step.id), `ACS-${step.id}`);
            case "feedback":
              return service.feedback({ taskId: taskId(step.id), externalEventId: `E-${step.n}`, status: step.status });
            case "callback": {
              const task = await store().get(taskId(step.id));
              return service.callback({ taskId: taskId(step.id), eventId: task?.lastEventId ?? "none", result: step.result });
            }
            case "cancel":
              return service.cancel(taskId(step.id), { reason: "人工取消", requestId: `cancel-${run}` });
            case "replay":
              return service.replay({ taskIds: [taskId(step.id)] }, { by: "ops", reason: "owner fixed" });
            case "dispatchJob":
              return dispatchJob.step();
            case "watchdog":
              return watchdog.step();
            case "overdueJob":
              return overdueJob.step();
            case "advance":
              return clock.advance(step.ms);
          }
        }
        for (const n of [0, 1]) {
          const history = await store().history(taskId(n));
          const task = await store().get(taskId(n));
          expect(statusOfHistory(history), taskId(n)).toBe(task?.status);
          history.forEach((h, i) => {
            expect(h.version).toBeGreaterThan(i === 0 ? 0 : history[i - 1]!.version);
            // An entry stands for the versions after the previous one's, so none is lost; only watchdog alerts fold.
            expect(h.version - h.repeats).toBe(i === 0 ? 0 : history[i - 1]!.version);
            if (h.repeats > 1) expect(h.cause.kind).toBe("watchdog");
            expect(h.firstAt).toBeLessThanOrEqual(h.at);
            if (i > 0) expect(taskEntryCollapsesInto(history[i - 1], h)).toBe(false);
          });
          if (history.length > 0) expect(history[0]!.version).toBe(1);
          if (task !== undefined) expect(history.at(-1)?.version).toBe(task.version);
          history.forEach((h, i) => expect(h.from).toBe(i === 0 ? null : history[i - 1]!.to));
          for (const h of history) seen.add(h.cause.kind);
          for (const h of history) expect(h.caller === null, `${h.cause.kind} ${JSON.stringify(h.caller)}`).toBe(JOB_CAUSES.includes(h.cause.kind));
          for (const h of history.filter((x) => x.caller !== null)) expect(h.caller!.userAgent).toBe("LMS/2.0 仓储");
        }
      }),
      { numRuns: RUNS, examples: [[EVERY_KIND]], ...(process.env["MSGX_SEED"] ? { seed: Number(process.env["MSGX_SEED"]) } : {}) },
    );
    // The runs reached every kind of change, so each one's entry was checked.
    expect([...seen].sort()).toEqual(["callback", "cancel", "create", "dispatch", "feedback", "mark-dispatched", "overdue", "replay", "watchdog"]);
  });

  it("history: N watchdog alerts on a task pending its callback are one entry with repeats N (version, time and alert number of the last, time of the first)", async () => {
    const clock = new ManualClock(T0);
    const service = new TaskService({ store: store(), clock });
    const watchdog = new TaskWatchdogJob({ store: store(), clock }, { pendingCallbackAlertMs: 60_000, pendingCallbackRetryMs: 60_000, batchSize: 1_000 });
    await service.create(sampleNewTask("TW-1"));
    await service.markDispatched("TW-1", "ACS-9");
    await service.feedback({ taskId: "TW-1", externalEventId: "acs-evt-9", status: "FINISHED" });
    const alertedAt: number[] = [];
    for (let i = 0; i < 12; i++) {
      clock.advance(60_000);
      await watchdog.step();
      expect((await store().get("TW-1"))?.callbackAlerts).toBe(i + 1);
      alertedAt.push(clock.now());
    }
    const history = await store().history("TW-1");
    expect(history.map((h) => [h.cause.kind, h.version, h.repeats])).toEqual([["create", 1, 1], ["mark-dispatched", 2, 1], ["feedback", 3, 1], ["watchdog", 15, 12]]);
    expect(history[3]).toMatchObject({ from: "FINISHED_PENDING_CALLBACK", to: "FINISHED_PENDING_CALLBACK", detail: "watchdog alert #12", firstAt: alertedAt[0], at: alertedAt[11] });
    // The owner's answer is a change of its own.
    const pending = (await store().get("TW-1"))!;
    await service.callback({ taskId: "TW-1", eventId: pending.lastEventId!, result: "SUCCESS" });
    const all = await store().history("TW-1");
    expect(all.map((h) => [h.cause.kind, h.version, h.repeats])).toEqual([["create", 1, 1], ["mark-dispatched", 2, 1], ["feedback", 3, 1], ["watchdog", 15, 12], ["callback", 16, 1]]);
    // Pages newest first: `next` is the `beforeVersion` of the older page, the pages together the whole.
    const first = await store().historyPage("TW-1", { limit: 2 });
    expect(first).toEqual({ entries: [all[4], all[3]], next: 15 });
    const second = await store().historyPage("TW-1", { limit: 2, beforeVersion: 15 });
    expect(second).toEqual({ entries: [all[2], all[1]], next: 2 });
    expect(await store().historyPage("TW-1", { limit: 2, beforeVersion: 2 })).toEqual({ entries: [all[0]], next: null });
    expect(await store().historyPage("TW-none", { limit: 2 })).toEqual({ entries: [], next: null });
  });

  it("history: a cancelled task's last entry names the cancel, its request and its caller; the history leaves with the purged task", async () => {
    const clock = new ManualClock(T0);
    let caller: ApiCaller | undefined = callerOf(7);
    const service = new TaskService({ store: store(), clock, callerOf: () => caller });
    await service.create(sampleNewTask("TH-1"));
    await service.markDispatched("TH-1", "ACS-77");
    caller = undefined;
    await service.feedback({ taskId: "TH-1", externalEventId: "acs-evt-1", status: "EXECUTING" });
    caller = { ...callerOf(8), route: "POST /tasks/v1/tasks/:taskId/cancel" };
    await service.cancel("TH-1", { reason: "人工取消", requestId: "ops-42" });
    const history = await store().history("TH-1");
    expect(history.map((h) => [h.from, h.to, h.cause.kind])).toEqual([
      [null, "CREATED", "create"],
      ["CREATED", "DISPATCHED", "mark-dispatched"],
      ["DISPATCHED", "EXECUTING", "feedback"],
      ["EXECUTING", "CANCEL_PENDING_CALLBACK", "cancel"],
    ]);
    expect(history[2]).toMatchObject({ cause: { kind: "feedback", externalEventId: "acs-evt-1", status: "EXECUTING" }, caller: null });
    expect(history[3]).toMatchObject({ cause: { kind: "cancel", requestId: "ops-42", reason: "人工取消" }, caller: { route: "POST /tasks/v1/tasks/:taskId/cancel", requestId: "req-8" } });
    expect(history[1]!.detail).toBe("external task ACS-77");
    const pending = (await store().get("TH-1"))!;
    await service.callback({ taskId: "TH-1", eventId: pending.lastEventId!, result: "SUCCESS" });
    expect(await service.history("TH-1")).toHaveLength(5);
    clock.advance(1);
    expect(await store().purgeFinished(clock.now(), 10)).toBeGreaterThanOrEqual(1);
    expect(await store().history("TH-1")).toEqual([]);
  });
}
