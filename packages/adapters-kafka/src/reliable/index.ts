/**
 * `@msgx/adapters-kafka/reliable`: the Kafka side of the reliable-message service (`@msgx/reliable`,
 * an optional peer): the consumer of a queue's topic and the creation of a queue's topics.
 */
export { ReliableMessageKafkaConsumer, type ReliableMessageKafkaConsumerOptions, type RecordValueHandler } from "./reliable-message-kafka-consumer.js";
export { ensureQueueTopics, QueueTopics, type QueueTopicAdmin, type EnsureQueueTopicsOptions } from "./queue-topics.js";
