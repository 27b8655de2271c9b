/**
 * `@msgx/adapters-kafka/tasks`: the Kafka side of task-event routing (`@msgx/tasks`, an optional
 * peer): the task-event and callback consumers and the creation of the task topics.
 */
export { runTaskEventConsumer, type TaskEventKafkaConsumerOptions, type RunningTaskEventConsumer, type TaskRecordHandler } from "./task-event-kafka-consumer.js";
export { runTaskCallbackConsumer, type TaskCallbackKafkaConsumerOptions } from "./task-callback-kafka-consumer.js";
export { ensureTaskTopics, type EnsureTaskTopicsOptions } from "./ensure-task-topics.js";
export { headerStrings } from "./kafka-record-headers.js";
