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
export { stopIdleRequestChecks } from "./idle-request-checks.js";
