import { currentCaller } from "../http/request-caller.js";
import { fencedTaskStore, TaskService, type TaskDispatcher, type TaskStore } from "@msgx/tasks";
import type { StepContext } from "../app/step-context.js";
import { taskRouting } from "../config/tasks-schema.js";
import { httpTaskDispatcher } from "./http-task-dispatcher.js";
import { directTaskApi, type TaskApi } from "./task-api.js";
import { createTaskMetrics, type TaskMetrics } from "./task-metrics.js";
import { kafkaCallbackConsumer, ResultTopicCallbacks, type StartCallbackConsumer } from "./result-topic-callbacks.js";

/** The task service as the runner hosts it: one service, its dispatcher, its API and its metrics. */
export interface TaskHost {
  /** The task store as this runner writes to it: every transaction fenced by its leadership epoch. */
  readonly store: TaskStore;
  readonly service: TaskService;
  readonly metrics: TaskMetrics;
  /** The executing system over HTTP (`tasks.dispatcher.url`); undefined = tasks are dispatched by API. */
  readonly dispatcher: TaskDispatcher | undefined;
  /** The consumer of owner callbacks on `tasks.callback.resultTopic`, when set (started by the `task-callbacks` step). */
  readonly resultTopic: ResultTopicCallbacks | undefined;
  /** The owner and executing-system surface (`/task/v1`); `onEvent` is told whenever a call wrote a task event (wake the relay). */
  api(onEvent: () => void): TaskApi;
}

/**
 * Builds the hosted service from `tasks.*` over the fenced store: its routing and owners, a
 * dispatcher over HTTP when `tasks.dispatcher.url` is set (or the one given, for tests), metrics,
 * and the result topic's consumer when `tasks.callback.resultTopic` is set (over kafkajs, or the one given).
 */
export function createTaskHost(ctx: StepContext, given: { readonly dispatcher?: TaskDispatcher; readonly callbackConsumer?: StartCallbackConsumer } = {}): TaskHost {
  const { parts, config, clock, logger } = ctx;
  const t = config.tasks;
  const store = fencedTaskStore(parts.tasks, parts.fence);
  const metrics = createTaskMetrics(
    clock,
    () => store.countByStatus(),
    () => store.countOverdue(),
  );
  const url = t.dispatcher.url;
  const dispatcher =
    given.dispatcher ??
    (url === undefined ? undefined : httpTaskDispatcher({ url, token: t.dispatcher.token, timeoutMs: t.dispatcher.timeoutMs, observe: (outcome) => metrics.dispatch(outcome) }));
  const service = new TaskService({ store, clock, logger, routing: taskRouting(t), taskNoTimeZone: t.taskNo.timeZone, overduePolicy: t.overdue, callerOf: currentCaller, ...(dispatcher ? { dispatcher } : {}) });
  const topic = t.callback.resultTopic;
  const brokers = (config.kafka.brokers ?? "").split(",").map((b) => b.trim()).filter(Boolean);
  const resultTopic =
    topic === undefined
      ? undefined
      : new ResultTopicCallbacks({
          topic,
          groupId: t.callback.groupId,
          service,
          metrics,
          logger,
          topics: t.createTopics ? parts.queueTopics : undefined,
          start: given.callbackConsumer ?? kafkaCallbackConsumer(brokers, config.kafka.clientId, logger),
        });
  return {
    store,
    service,
    metrics,
    dispatcher,
    resultTopic,
    api: (onEvent) => directTaskApi({ service, store, metrics, onEvent }),
  };
}
