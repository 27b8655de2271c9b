/**
 * Task routing as the example uses it. Until the package barrels export it (`@msgx/core`,
 * `@msgx/adapters-pg`, `@msgx/adapters-kafka`), it is reached by path; the build bundles these
 * sources with the packages' own, so there is one copy of every module either way.
 */
export { TaskService, type TaskFeedbackAnswer, type TaskCallbackAnswer } from "../../../../packages/core/src/task-routing/task-service.js";
export { isTaskRequestError, TaskRequestError } from "../../../../packages/core/src/task-routing/task-request-error.js";
export { TaskStatus, type NewTask, type TaskRecord } from "../../../../packages/core/src/task-routing/task-record.js";
export type { TaskFeedback } from "../../../../packages/core/src/task-routing/task-feedback.js";
export type { TaskCallback } from "../../../../packages/core/src/task-routing/task-callback.js";
export type { TaskEventMessage } from "../../../../packages/core/src/task-routing/task-event.js";
export {
  DEFAULT_TASK_ROUTING,
  taskDeliveryTopics,
  taskTargets,
  taskTopic,
  taskTopics,
  type TaskRouting,
} from "../../../../packages/core/src/task-routing/task-routing-config.js";
export { TaskEventHeader } from "../../../../packages/core/src/task-routing/task-headers.js";
export { TaskHandlerRegistry, type TaskEventHandler, type TaskHandlerContext } from "../../../../packages/core/src/task-routing/task-handler-registry.js";
export { TaskEventConsumer, type TaskConsumeStep } from "../../../../packages/core/src/task-routing/task-event-consumer.js";
export { TaskCallbackSender } from "../../../../packages/core/src/task-routing/task-callback-sender.js";
export { parseTaskCallbackMessage, resultTopicCallbackPort, type TaskCallbackPort } from "../../../../packages/core/src/task-routing/task-callback-port.js";
export { PgTaskStore } from "../../../../packages/adapters-pg/src/task-routing/pg-task-store.js";
export { PgTaskConsumeLogStore } from "../../../../packages/adapters-pg/src/task-routing/pg-task-consume-log-store.js";
export { taskConsumeLogMigration, taskRoutingMigration } from "../../../../packages/adapters-pg/src/migrations/0006-task-routing.js";
export { runTaskEventConsumer, type RunningTaskEventConsumer } from "../../../../packages/adapters-kafka/src/task-routing/task-event-kafka-consumer.js";
export { ensureTaskTopics } from "../../../../packages/adapters-kafka/src/task-routing/ensure-task-topics.js";
export { runTaskCallbackConsumer } from "../../../../packages/adapters-kafka/src/task-routing/task-callback-kafka-consumer.js";
