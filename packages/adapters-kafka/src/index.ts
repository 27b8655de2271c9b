export {
  KafkaDeliveryPort,
  DEFAULT_PRODUCER_RETRY,
  type KafkaDeliveryPortOptions,
  type KafkaProducerOverrides,
  type KafkaProducerSettings,
} from "./kafka-delivery-port.js";
export { assertSafeProducerConfig, type ProducerSafetyConfig } from "./producer-safety.js";
export {
  mapKafkaError,
  classifyKafkaError,
  PROTOCOL_ERROR_TABLE,
  OUTAGE_ERROR_NAMES,
  type KafkaFailure,
} from "./kafka-error-map.js";
export { ensureTopics, type TopicAdmin, type EnsureTopicsOptions, type EnsureTopicsResult } from "./topics.js";
export {
  clusterReplication,
  replicationForBrokers,
  MAX_AUTO_REPLICATION_FACTOR,
  type TopicReplication,
  type TopicReplicationOverrides,
} from "./topic-replication.js";
export { EventHeader, readEventHeaders, type ParsedEventHeaders } from "./event-headers.js";
export { kafkajsLogCreator } from "./kafkajs-log-creator.js";

// Reliable messages (seed 002)
export { ReliableMessageKafkaConsumer, type ReliableMessageKafkaConsumerOptions, type RecordValueHandler } from "./reliable-message/reliable-message-kafka-consumer.js";
export { ensureQueueTopics, QueueTopics, type QueueTopicAdmin, type EnsureQueueTopicsOptions } from "./reliable-message/queue-topics.js";

// Task routing
export { runTaskEventConsumer, type TaskEventKafkaConsumerOptions, type RunningTaskEventConsumer, type TaskRecordHandler } from "./task-routing/task-event-kafka-consumer.js";
export { runTaskCallbackConsumer, type TaskCallbackKafkaConsumerOptions } from "./task-routing/task-callback-kafka-consumer.js";
export { ensureTaskTopics, type EnsureTaskTopicsOptions } from "./task-routing/ensure-task-topics.js";
export { headerStrings } from "./task-routing/kafka-record-headers.js";
