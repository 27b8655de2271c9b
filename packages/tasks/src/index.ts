/**
 * `@msgx/tasks`: task-event routing (SPEC §3) — the task record and its state machine, task events
 * and callbacks, the task service and its jobs, the consumer side, and their ports. It builds on
 * `@msgx/core` (errors, clock, retry, the outbox and delivery) and does no I/O of its own.
 */
export { TaskStatus, TASK_STATUSES, PENDING_CALLBACK_STATUSES, FINAL_TASK_STATUSES, awaitsCallback, newTaskRecord, assertTaskId, assertRoutingCode, isRoutingCode, type NewTask, type TaskPlaces, type TaskRecord, type TaskPayload, type TaskSubject, type TaskExternalRef } from "./task-record.js";
export { TASK_NO_PATTERN, DEFAULT_TASK_NO_TIME_ZONE, formatTaskNo, taskNoDay, assertTaskNo, assertTaskNoTimeZone } from "./task-no.js";
export { TaskRequestError, isTaskRequestError, TASK_REQUEST_ERROR_HTTP_STATUS, type TaskRequestErrorCode } from "./task-request-error.js";
export { evolveTask, isLegalTaskTransition, LEGAL_TASK_FROM, type TaskTransition } from "./task-machine.js";
export { TaskEventType, TASK_EVENT_SCHEMA_VERSION, taskEventId, taskEventVersion, taskEventMessage, parseTaskEvent, expectsTaskCallback, type TaskEventMessage, type TaskEventExtras, type ParsedTaskEvent } from "./task-event.js";
export { DEFAULT_TASK_ROUTING, TASK_TARGET, assertTaskRouting, assertKnownOwner, taskTarget, taskTopic, taskTargets, taskTopics, taskDeliveryTopics, taskEventDraft, type TaskRouting } from "./task-routing-config.js";
export { TaskEventHeader, taskEventHeaders } from "./task-headers.js";
export { TaskFeedbackStatus, TaskFeedbackOutcome, decideTaskFeedback, type TaskFeedback, type TaskFeedbackKey, type TaskFeedbackEntry, type TaskFeedbackDecision } from "./task-feedback.js";
export { TaskCallbackResult, TaskCallbackOutcome, decideTaskCallback, type TaskCallback, type TaskCallbackEntry, type TaskCallbackDecision } from "./task-callback.js";
export type { TaskCause, TaskHistoryEntry, TaskHistoryPage } from "./task-history.js";
export { collapsedTaskEntry, taskEntryCollapsesInto } from "./task-history.js";
export type { TaskStore, TaskTx, TaskFilter, TaskTransactionOptions } from "./task-store.js";
export { fencedTaskStore } from "./fenced-task-store.js";
export { TaskService, type TaskServiceDeps, type TaskFeedbackAnswer, type TaskCallbackAnswer, type TaskCancelRequest, type TaskCancelAnswer } from "./task-service.js";
export { MAX_TASK_REPLAY } from "./task-request-checks.js";
export type { TaskDispatcher, DispatchAnswer, CancelAnswer } from "./task-dispatcher.js";
export { DispatchJob, DEFAULT_DISPATCH_RETRY, dispatchBackoffMs, decideDispatchAnswer, type DispatchRetryOptions, type TaskDispatchStep, type DispatchJobDeps, type DispatchJobOptions } from "./dispatch-job.js";
export { TaskOverdueReason, TASK_OVERDUE_REASONS, NO_TASK_TIMEOUTS, WATCHED_TASK_STATUSES, resolveTaskTimeouts, assertTaskOverduePolicy, decideTaskOverdue, isTaskOverdue, taskHeartbeatDueAt, taskOverdueText, type TaskTimeouts, type TaskOverduePolicy, type ResolvedTaskTimeouts } from "./task-overdue.js";
export { TaskOverdueJob, DEFAULT_TASK_OVERDUE_BATCH, type TaskOverdueStep, type TaskOverdueJobDeps } from "./task-overdue-job.js";
export { TaskWatchdogJob, DEFAULT_TASK_WATCHDOG_OPTIONS, type TaskWatchdogOptions, type TaskWatchdogStep, type TaskWatchdogDeps } from "./task-watchdog-job.js";
export { taskReplayEligibility, taskReplayCandidate, pendingEventDraft, type TaskReplayFilter, type TaskReplayRequest, type TaskReplayCandidate, type TaskReplayResult, type TaskReplayEntry } from "./task-replay.js";
export { TaskConsumeStatus, TaskCallbackStatus, taskCallbackResultOf, isTaskEventSettled, type TaskConsumeLogEntry, type TaskConsumeLogWrite } from "./task-consume-log.js";
export type { TaskConsumeLogStore, TaskConsumeTx, TaskConsumeLogFilter } from "./task-consume-log-store.js";
export { routeTaskRecord, unreadableEventId, decideConsumePrior, decideTaskHandlerFailure, shouldReopenForReplay, shouldReopenCallback, type ConsumedTaskRecord, type TaskRouteVerdict, type TaskPriorDecision, type TaskHandlerFailureDecision } from "./task-consume-decision.js";
export { TaskHandlerRegistry, type TaskEventHandler, type TaskHandlerContext } from "./task-handler-registry.js";
export { TaskEventConsumer, type TaskEventConsumerDeps, type TaskConsumeStep, type TaskConsumeFailpoint } from "./task-event-consumer.js";
export { resultTopicCallbackPort, parseTaskCallbackMessage, TASK_CALLBACK_EVENT_ID_HEADER, type TaskCallbackPort, type TaskCallbackMessage } from "./task-callback-port.js";
export { applyTaskCallbackRecord, TASK_CALLBACK_RECORD_OUTCOMES, type TaskCallbackRecordOutcome, type TaskCallbackRecordAnswer } from "./task-callback-record.js";
export { TaskCallbackSender, DEFAULT_TASK_CALLBACK_SENDER_OPTIONS, type TaskCallbackSenderDeps, type TaskCallbackSenderOptions, type TaskCallbackStep } from "./task-callback-sender.js";
