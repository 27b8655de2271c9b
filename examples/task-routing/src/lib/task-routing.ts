/**
 * Task routing as the example uses it: `@msgx/tasks` and the task subpaths of the adapters
 * (`@msgx/adapters-pg/tasks`, `@msgx/adapters-kafka/tasks`).
 */
export { TaskService, type TaskFeedbackAnswer, type TaskCallbackAnswer } from "@msgx/tasks";
export { isTaskRequestError, TaskRequestError } from "@msgx/tasks";
export { TaskStatus, type NewTask, type TaskRecord } from "@msgx/tasks";
export type { TaskFeedback } from "@msgx/tasks";
export type { TaskCallback } from "@msgx/tasks";
export type { TaskEventMessage } from "@msgx/tasks";
export { DEFAULT_TASK_ROUTING, taskDeliveryTopics, taskTargets, taskTopic, taskTopics, type TaskRouting } from "@msgx/tasks";
export { TaskEventHeader } from "@msgx/tasks";
export { TaskHandlerRegistry, type TaskEventHandler, type TaskHandlerContext } from "@msgx/tasks";
export { TaskEventConsumer, type TaskConsumeStep } from "@msgx/tasks";
export { TaskCallbackSender } from "@msgx/tasks";
export { parseTaskCallbackMessage, resultTopicCallbackPort, type TaskCallbackPort } from "@msgx/tasks";
export { PgTaskStore } from "@msgx/adapters-pg/tasks";
export { PgTaskConsumeLogStore } from "@msgx/adapters-pg/tasks";
export { TASK_ROUTING_MIGRATIONS, taskConsumeLogMigration } from "@msgx/adapters-pg/tasks";
export { runTaskEventConsumer, type RunningTaskEventConsumer } from "@msgx/adapters-kafka/tasks";
export { ensureTaskTopics } from "@msgx/adapters-kafka/tasks";
export { runTaskCallbackConsumer } from "@msgx/adapters-kafka/tasks";
