/**
 * The reliable-message parts of the msgx packages this example uses. They are imported from the
 * package sources until the package barrels export them; then this file becomes plain
 * re-exports of `@msgx/core`, `@msgx/adapters-pg` and `@msgx/adapters-kafka`.
 */
export { ReliableMessageService } from "../../../../packages/core/src/reliable-message/reliable-message-service.js";
export { CheckBackJob, type ReliableMessageChecker } from "../../../../packages/core/src/reliable-message/check-back-job.js";
export { RecoveryJob } from "../../../../packages/core/src/reliable-message/recovery-job.js";
export { ReliableMessageConsumer, type ConsumeOutcome } from "../../../../packages/core/src/reliable-message/reliable-message-consumer.js";
export { reliableMessageTarget, reliableMessageTopics, type ReliableMessageEnvelope } from "../../../../packages/core/src/reliable-message/message-envelope.js";
export type { ReliableMessageOptions } from "../../../../packages/core/src/reliable-message/reliable-message-options.js";
export type { ReliableMessage } from "../../../../packages/core/src/reliable-message/reliable-message.js";
export { PgReliableMessageStore } from "../../../../packages/adapters-pg/src/reliable-message/pg-reliable-message-store.js";
export { PgConsumeLog } from "../../../../packages/adapters-pg/src/reliable-message/pg-consume-log.js";
export { reliableMessageConsumeLogMigration } from "../../../../packages/adapters-pg/src/migrations/0005-reliable-message.js";
export { ReliableMessageKafkaConsumer } from "../../../../packages/adapters-kafka/src/reliable-message/reliable-message-kafka-consumer.js";
export { ensureQueueTopics } from "../../../../packages/adapters-kafka/src/reliable-message/queue-topics.js";
