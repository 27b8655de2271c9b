import { DispatchJob, TASK_OVERDUE_REASONS, TASK_TARGET, TaskOverdueJob, TaskWatchdogJob, taskTopic } from "@msgx/tasks";
import { type RouterStep } from "@msgx/core";
import type { StepContext } from "../app/step-context.js";
import { TargetRelay } from "../app/target-relay.js";
import type { TaskHost } from "./task-host.js";
import { exponentialBackoff } from "@msgx/core";

/** How often the relay looks for task targets with pending rows (a call that wrote an event wakes it at once). */
const DISCOVER_EVERY_MS = 1_000;
/** Batches one dispatch or watchdog run may do before it waits `tasks.jobIntervalMs`. */
const MAX_BATCHES_PER_RUN = 10;

/** The longest wait of the dispatch step while the executing system stays unreachable (from `tasks.jobIntervalMs`, doubling). */
const OUTAGE_MAX_WAIT_MS = 10_000;

/** How often the `task-callbacks` step looks whether its consumer runs. */
const CALLBACKS_RECHECK_MS = 5_000;

/** Runs a job's `step` until a batch is not full, at most {@link MAX_BATCHES_PER_RUN} times, telling `each` every result. */
async function inBatches<S extends { readonly more: boolean }>(step: () => Promise<S>, each: (result: S) => void): Promise<void> {
  for (let i = 0; i < MAX_BATCHES_PER_RUN; i++) {
    const result = await step();
    each(result);
    if (!result.more) break;
  }
}

/** The relay's step name: `/task/v1` and the jobs wake it after writing a task event. */
export const TASK_RELAY_STEP = "task-relay";

/**
 * Where a task target's rows go: `KAFKA:task` to `tasks.routing.topic`, `KAFKA:task:<owner>` to
 * `tasks.routing.topicPattern` with the owner — whatever the mode now, so rows written under an
 * earlier routing mode or owner list are still delivered, never left pending.
 */
export function taskTargetTopic(target: string, routing: { readonly topic: string; readonly topicPattern: string }): { readonly topic: string; readonly owner: string | null } {
  if (target === TASK_TARGET) return { topic: routing.topic, owner: null };
  const owner = target.slice(TASK_TARGET.length + 1);
  return { topic: taskTopic({ mode: "topic-per-owner", topicPattern: routing.topicPattern }, owner), owner };
}

/**
 * The task service's router steps (docs/task-routing.md "Hosted by the msgx runner"):
 * - `task-relay`: one `MsgDispatcher` per task target with pending rows (`KAFKA:task`, or
 *   `KAFKA:task:<owner>` per owner: a stuck owner blocks only itself); the topic is created before
 *   its first send (`tasks.createTopics`; JSONL needs none);
 * - `task-dispatch` (with `tasks.dispatcher.url`): the `DispatchJob`, sending due CREATED tasks to
 *   the executing system; an outage ends the run and spends nothing, and the step waits longer
 *   (doubling from `tasks.jobIntervalMs` up to 10 s) while it lasts;
 * - `task-callbacks` (with `tasks.callback.resultTopic`): starts the consumer of owner callbacks on
 *   the result topic (creating the topic first, `tasks.createTopics`), and again after a failed start;
 *   `startPipeline` stops it after the loops;
 * - `task-watchdog`: the `TaskWatchdogJob`, alerting on tasks pending their owner's callback past
 *   `tasks.watchdog.pendingCallbackAlertMs` and sending their event again (wakes the relay);
 * - `task-overdue`: the `TaskOverdueJob`, publishing TASK_OVERDUE for DISPATCHED / EXECUTING tasks
 *   past their deadline or heartbeat timeout (`tasks.overdue`), once per cause (wakes the relay).
 */
export function taskSteps(ctx: StepContext, host: TaskHost): RouterStep[] {
  const { parts, config, clock, logger } = ctx;
  const t = config.tasks;
  const relay = new TargetRelay(ctx, {
    createTopics: t.createTopics,
    unready: "task relay: cannot create the task topic yet; its events wait in the outbox",
    ready: "task relay: the task topic is there",
  });
  const steps: RouterStep[] = [
    {
      name: TASK_RELAY_STEP,
      run: async (signal) => {
        for (const target of await parts.outbox.pendingTargets(TASK_TARGET)) {
          signal.throwIfAborted();
          // The prefix also matches `KAFKA:taskX…`, which is not ours.
          if (target !== TASK_TARGET && !target.startsWith(`${TASK_TARGET}:`)) continue;
          const { topic, owner } = taskTargetTopic(target, t.routing);
          await relay.drain({ target, topic, create: [topic], about: owner === null ? { topic } : { owner, topic } }, signal);
        }
        return { after: DISCOVER_EVERY_MS, wake: [] };
      },
    },
  ];
  const dispatcher = host.dispatcher;
  if (dispatcher) {
    const job = new DispatchJob(
      { store: host.store, dispatcher, clock, logger },
      { retry: { initialBackoffMs: t.dispatchRetry.initialMs, maxBackoffMs: t.dispatchRetry.maxMs } },
    );
    let outages = 0;
    steps.push({
      name: "task-dispatch",
      run: async (signal) => {
        await inBatches(
          () => job.step(signal),
          (step) => {
            host.metrics.failed(step.refused);
            outages = step.outage ? outages + 1 : 0;
          },
        );
        // An unreachable executing system is asked less often (and logged less) the longer it stays down.
        const after = outages === 0 ? t.jobIntervalMs : Math.max(t.jobIntervalMs, exponentialBackoff({ initialMs: t.jobIntervalMs, maxMs: OUTAGE_MAX_WAIT_MS }, outages));
        return { after, wake: [] };
      },
    });
  }
  const callbacks = host.resultTopic;
  if (callbacks) {
    steps.push({
      name: "task-callbacks",
      // Starts the consumer once (a failure is retried with the loop's backoff); it runs until the leader's loops stop.
      run: async () => {
        await callbacks.ensureStarted();
        return { after: CALLBACKS_RECHECK_MS, wake: [] };
      },
    });
  }
  const watchdog = new TaskWatchdogJob({ store: host.store, clock, logger, routing: host.service.routing }, t.watchdog);
  steps.push({
    name: "task-watchdog",
    run: async (signal) => {
      let redelivered = 0;
      await inBatches(
        () => watchdog.step(signal),
        (step) => {
          host.metrics.pendingAlerts(step.alerted);
          redelivered += step.redelivered;
        },
      );
      return { after: t.jobIntervalMs, wake: redelivered > 0 ? [TASK_RELAY_STEP] : [] };
    },
  });
  const overdue = new TaskOverdueJob({ store: host.store, clock, logger, routing: host.service.routing });
  steps.push({
    name: "task-overdue",
    run: async (signal) => {
      let written = 0;
      await inBatches(
        () => overdue.step(signal),
        (step) => {
          for (const reason of TASK_OVERDUE_REASONS) {
            host.metrics.overdue(reason, step.overdue[reason]);
            written += step.overdue[reason];
          }
        },
      );
      return { after: t.jobIntervalMs, wake: written > 0 ? [TASK_RELAY_STEP] : [] };
    },
  });
  return steps;
}
