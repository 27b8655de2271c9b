/**
 * `@msgx/reliable`: the reliable-message service (SPEC §4) — the message and its state machine,
 * envelopes and dead letters, the service, its check-back and recovery jobs, the consumer, and their
 * ports. It builds on `@msgx/core` (errors, clock, retry, the outbox and delivery) and does no I/O.
 */
export { ReliableMessageStatus, ReliableMessagePhase, reliableMessagePhase, isFinishedStatus, type ReliableMessage, type ReliableMessageDraft } from "./reliable-message.js";
export { ReliableMessageError, ReliableMessageErrorCode, isReliableMessageError } from "./reliable-message-error.js";
export { checkReliableMessageDraft, QUEUE_NAME, MAX_CHECK_DELAY_MS } from "./message-draft.js";
export { heldBehind, heldBehindDead, isOrderedQueue, isKeyOrdered, releasesKey } from "./key-order.js";
export { DEFAULT_RELIABLE_MESSAGE_OPTIONS, reliableMessageOptions, ackWaitAfter, rejectWaitAfter, checkWaitAfter, checkDelayOf, subscriptionsOf, type ReliableMessageOptions, type ReliableMessageOptionsInput, type AfterMaxChecks } from "./reliable-message-options.js";
export { decideReliableMessage, evolveReliableMessage, impliesSend, impliesDeadLetter, sendsSpent, type LastSendState, type ReliableMessageCommand, type ReliableMessageEvent, type ReliableMessageDecision, type ReliableMessageContext, type ReliableMessageActor } from "./message-machine.js";
export { RELIABLE_MESSAGE_TARGET_PREFIX, RELIABLE_MESSAGE_TOPIC_PREFIX, RELIABLE_MESSAGE_DLQ_TARGET_PREFIX, RELIABLE_MESSAGE_DLQ_TOPIC_PREFIX, RELIABLE_MESSAGE_ENVELOPE_SCHEMA, RELIABLE_SUBSCRIPTION_TARGET_PREFIX, RELIABLE_SUBSCRIPTION_TOPIC_PREFIX, reliableSubscriptionTarget, splitSubscriptionTarget, reliableMessageTarget, reliableMessageTopics, reliableMessageDlqTarget, reliableMessageDlqTopics, deadLetterDraft, recordKeyOf, parseReliableMessageEnvelope, type ReliableMessageEnvelope, type ReliableMessageDeadLetter, type ReliableMessageEnvelopeParse } from "./message-envelope.js";
export type { HeldCounts, ReliableMessageStore, SubscriptionDeliveryWrite, ReliableMessageWrite, ReliableMessageWriteResult, ReliableMessageWriteConflict, ReliableMessageFilter, ReliableMessagePage, ReliableMessagePhaseCounts, ReliableQueueCounts, SubscriptionDeliveryCounts, SubscriptionDeliveryPhase } from "./reliable-message-store.js";
export type { ReliableMessageCause, ReliableMessageHistoryEntry, ReliableMessageHistoryPage } from "./message-history.js";
export { collapsed, collapsesInto, isOutageRecheck, withHistoryEntry } from "./message-history.js";
export type { ReliableMessageOutcome, ReliableMessageBatchResult } from "./run-command.js";
export { deliveryTime, confirmDeliveryTime, MAX_DELIVERY_DELAY_MS, type ReliableDelivery } from "./reliable-delivery.js";
export { ReliableMessageService, MAX_REJECT_REASON, type ReliableMessageServiceDeps, type BulkResendResult } from "./reliable-message-service.js";
export { CheckBackJob, CheckVerdict, CHECK_VERDICT_ALIASES, normalizeCheckVerdict, decideCheckBack, type ReliableMessageChecker, type CheckAnswer, type CheckBackDecision, type CheckBackStep, type CheckBackJobDeps } from "./check-back-job.js";
export { RecoveryJob, decideRecovery, lastSendState, type RecoveryStep, type RecoveryJobDeps } from "./recovery-job.js";
export type { ConsumeLog, ConsumeLogEntry } from "./consume-log.js";
export { ReliableMessageConsumer, DEFAULT_CONSUMER_MAX_ATTEMPTS, DEFAULT_CONSUMER_RETRY_WAITS_MS, MAX_REJECT_REASON_LENGTH, type ReliableMessageHandler, type ReliableMessageConsumerDeps, type ConsumeOutcome } from "./reliable-message-consumer.js";
export { SUBSCRIPTION_NAME, MAX_SUBSCRIPTIONS, subscriptionPhase, type SubscriptionDelivery } from "./subscription-delivery.js";
export { decideSubscriptionDelivery, evolveSubscriptionDelivery, type SubscriptionCommand } from "./subscription-machine.js";
