/**
 * The reliable-message parts of the msgx packages this example uses. They are imported from the
 * package sources until the package barrels export them; then this file becomes plain
 * re-exports of `@msgx/core`, `@msgx/adapters-pg` and `@msgx/adapters-kafka`.
 */
export { ReliableMessageService } from "@msgx/reliable";
export { CheckBackJob, type ReliableMessageChecker } from "@msgx/reliable";
export { RecoveryJob } from "@msgx/reliable";
export { ReliableMessageConsumer, type ConsumeOutcome } from "@msgx/reliable";
export { reliableMessageTarget, reliableMessageTopics, type ReliableMessageEnvelope } from "@msgx/reliable";
export type { ReliableMessageOptions } from "@msgx/reliable";
export type { ReliableMessage } from "@msgx/reliable";
export { PgReliableMessageStore } from "@msgx/adapters-pg/reliable";
export { PgConsumeLog } from "@msgx/adapters-pg/reliable";
export { RELIABLE_MESSAGE_MIGRATIONS, reliableMessageConsumeLogMigration } from "@msgx/adapters-pg/reliable";
export { ReliableMessageKafkaConsumer } from "@msgx/adapters-kafka/reliable";
export { ensureQueueTopics } from "@msgx/adapters-kafka/reliable";
