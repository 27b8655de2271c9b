// State tables
export { states, type ValueOf } from "./base/states.js";
export type { CursorPage } from "./base/cursor-page.js";
export { newestFirstPage } from "./base/newest-first-page.js";

// Errors
export { ErrorClass } from "./errors/error-class.js";
export {
  MsgxError,
  isMsgxError,
  isOutage,
  dependencyUnavailable,
  errorMessage,
  type ErrorKind,
  type MsgxErrorOptions,
} from "./errors/msgx-error.js";

// Model
export type { Meta } from "./model/meta.js";
export { Identity, DEFAULT_IDENTITY_OPTIONS, DEFAULT_IDENTITY_WINDOW_MS, type IdentityOptions } from "./model/identity.js";
export { sha256Hex, type ContentHash } from "./model/content-hash.js";
export { type SeasonalSchedule } from "./model/seasonal-schedule.js";
export type { MsgKind, MsgKindName, SchdBody, SchdDelBody, RefRecord } from "./model/msg-kind.js";
export type { DecodedMessage } from "./model/decoded-message.js";
export type { FlightRecord, CollectionRow, WireValue } from "./model/flight-record.js";
export { SCALAR_FIELDS, REQUIRED_SCHD_FIELDS, COLLECTIONS, INDEXED_SCALARS, type CollectionName } from "./model/flight-schema.js";
export { ProcStatus, type ProcRecord, type ErrorEntry } from "./model/proc-record.js";
export type { FlightState } from "./model/flight-state.js";
export { fieldDiff, type FieldChange } from "./model/field-diff.js";
export type { ApiCaller } from "./model/api-caller.js";

// Codec
export { DEFAULT_CODEC_OPTIONS, type DecodeResult, type CodecOptions, type CodecLimits } from "./codec/decode-result.js";
export { KINDS, TypeDisposition, knownTypes, typePolicyProblems, type TypePolicy } from "./codec/type-policy.js";

export { decodeMessage, decodeMessageInSlices } from "./codec/xml-codec.js";
export { formatBodyTime, operationDayOf } from "./codec/body-time.js";

// Ports
export { systemClock, type Clock } from "./runtime/clock.js";
export type { Timers, TimerHandle } from "./runtime/timers.js";
export { silentLogger, type Logger, type LogFields } from "./runtime/logger.js";
export { noopTracer, type Tracer, type TraceSpan, type SpanOptions } from "./runtime/tracer.js";
export { parseTraceparent, formatTraceparent, type TraceContext } from "./runtime/traceparent.js";
export type { Mailbox, MailboxRow, RawRead, BackfillEntry, BackfillResult, AppendedElsewhere } from "./ports/mailbox.js";
export {
  CMINMSGS_SUBSYSTEM_COLUMNS,
  subsystemValues,
  dttmToDatetime,
  type SubsystemColumns,
  type SubsystemValues,
} from "./ports/subsystem-columns.js";
export type { PipelineStore, PipelineTx, InboxEntry, IntakeState, BackfillTodo, RecordFilter, LoadedRunState, CommitRunOptions } from "./processing/pipeline-store.js";
export { StaleRunError } from "./processing/stale-run-error.js";
export type { AuditEntry } from "./processing/run-decision.js";
export type { DeliveryPort, DeliveryRecord, DeliveryPlacement, ProducerFencing } from "./ports/delivery-port.js";
export type { StatusReader, PipelineStatus } from "./processing/status-reader.js";
export {
  LeasePhase,
  decideLease,
  evolveLease,
  initialLease,
  leaseTiming,
  mayLead,
  type LeaseCommand,
  type LeaseState,
  type LeaseTiming,
} from "./leadership/lease-machine.js";
export type { LeaseGrant, LeaseRefusal, LeaseStore } from "./leadership/lease-store.js";
export {
  RunnerRole,
  compareRunners,
  type RunnerBeat,
  type RunnerPresence,
  type RunnerPresenceStore,
} from "./operations/runner-presence.js";
export {
  MINUTE_MS,
  MAX_THROUGHPUT_MINUTES,
  assertThroughputWindow,
  emptyMinutes,
  type MinuteThroughput,
  type ThroughputReader,
} from "./operations/throughput-reader.js";
export { StatusSamples, statusGauges, statusHistory, type StatusHistorySample } from "./operations/status-history.js";

// Outbox
export { Target, EventType, DeliveryStatus, type OutboxEvent, type OutboxEventDraft } from "./outbox/outbox-event.js";
export { duePrefix } from "./outbox/due-prefix.js";
export { DEFAULT_MAX_RECORD_BYTES, recordBytes } from "./outbox/record-size.js";
export { payloadJson } from "./outbox/payload-json.js";

// Flight state and processors
export { defaultProcessors } from "./flight/default-processors.js";
export { DEFAULT_FLIGHT_PROCESSING_OPTIONS, type FlightProcessingOptions } from "./flight/flight-processing-options.js";
export { snapshotProcessor } from "./flight/snapshot-processor.js";
export { adftProcessor } from "./flight/adft-processor.js";
export { schdDelProcessor } from "./flight/schd-del-processor.js";
export { flopProcessor } from "./flight/flop-processor.js";
export { fdelProcessor } from "./flight/fdel-processor.js";
export { FLOP_MATRIX, flopGroup } from "./model/flop-matrix.js";
export {
  flightToPayload,
  flightFromPayload,
  FLIGHT_PAYLOAD_SCHEMA_VERSION,
  type FlightPayload,
  type FlightPayloadRow,
} from "./flight/flight-payload.js";
export {
  compareFlights,
  COMPARISON_IGNORED_BY_DEFAULT,
  ignoreEntryProblem,
  type ComparableFlight,
  type FlightComparison,
  type FlightDifference,
} from "./flight/flight-comparison.js";
export { flightEvents } from "./flight/flight-events.js";
export { sameFlightContent, type FlightContent } from "./flight/flight-content.js";
export { decideRetirement, retiredFlightState, retirementCutoffDay, type RetirementOptions } from "./flight/history-retirement.js";
export {
  assertListQuery,
  assertRecentLimit,
  assertSearchQuery,
  FLID_PATTERN,
  FLIGHT_SEARCH_TEXT,
  MAX_FLIGHT_LIST_LIMIT,
  MAX_FLIGHT_SEARCH_LIMIT,
  type FlightReader,
  type FlightListQuery,
  type FlightSearchQuery,
} from "./flight/flight-reader.js";

// Delivery
export {
  ConsumerDedupe,
  DEFAULT_CONSUMER_DEDUPE_OPTIONS,
  type DedupeInput,
  type DedupeVerdict,
  type DedupeReason,
  type ConsumerDedupeOptions,
} from "./delivery/consumer-dedupe.js";
export { assertReadAboveMark, type OutboxStore, type SentMark } from "./delivery/outbox-store.js";
export { sentFoldStep } from "./exchange/sent-fold-step.js";
export { EventHeader, eventHeaders, readEventId } from "./outbox/event-headers.js";
export { DEFAULT_DELIVERY_TOPICS, msgRecord, schdRecord, type DeliveryTopics } from "./delivery/delivery-records.js";
export { pausesDelivery } from "./delivery/send-prefix.js";
export type { DeliveryDeps } from "./delivery/delivery-deps.js";
export { MsgDispatcher, DEFAULT_MSG_DISPATCHER_OPTIONS, type MsgDispatcherOptions } from "./delivery/msg-dispatcher.js";
export { CommittedEvents, HandOver, DEFAULT_HAND_OVER_LIMIT } from "./outbox/committed-events.js";
export { mergeSchd } from "./delivery/schd-merge.js";
export { shouldFlush, DEFAULT_SCHD_FLUSH_POLICY, type SchdFlushPolicy } from "./delivery/schd-flush-decision.js";
export { SchdFlusher, DEFAULT_SCHD_FLUSHER_OPTIONS, type SchdFlusherOptions } from "./delivery/schd-flusher.js";

// Processing
export { typeOutcomeOf } from "./processing/type-outcome.js";
export { exponentialBackoff, type Backoff } from "./runtime/exponential-backoff.js";
export {
  DEFAULT_RETRY_POLICY,
  DEFAULT_UNSUPPORTED_POLICY,
  backoffAfter,
  type RetryPolicy,
  type UnsupportedPolicy,
} from "./runtime/retry-policy.js";
export { IllegalTransitionError } from "./processing/proc-machine.js";
export { decideTick } from "./processing/decide-tick.js";
export { Breaker, closedBreaker, DEFAULT_BREAKER_POLICY, type BreakerState, type BreakerPolicy } from "./runtime/outage-breaker.js";
export type { Processor, ProcessorTable, ProcessorResult, ProcessorContext, FlightView, MessageWarning } from "./processing/processor.js";
export {
  emptyRunDecision,
  type RunDecision,
  type IdentityBinding,
  type IdentityOwner,
} from "./processing/run-decision.js";
export type { SnapshotLogEntry } from "./processing/snapshot-log-entry.js";
export { prepareRun } from "./processing/prepare-run.js";
export { decideRun } from "./processing/decide-run.js";
export { Pump, type PumpDeps } from "./processing/pump.js";
export { DEFAULT_PUMP_OPTIONS, type PumpOptions } from "./processing/pump-options.js";
export type { PumpSpeculations } from "./processing/speculation-slot.js";
export { DEFAULT_LEADER_MEMORY_OPTIONS, type LeaderMemoryOptions, type LeaderMemorySizes } from "./processing/leader-memory.js";
export { SimulatedCrashMarker } from "./runtime/simulated-crash.js";
export { BackfillSweeper, DEFAULT_BACKFILL_SWEEP_OPTIONS, type BackfillSweepOptions } from "./processing/backfill-sweeper.js";

// Intake
export { GapTracker } from "./intake/gap-tracker.js";
export { InboxPoller, DEFAULT_INBOX_POLLER_OPTIONS, type InboxPollerOptions } from "./intake/inbox-poller.js";

// The pipeline router: the named steps, their wake edges, the breaker-guarded step (docs/exchange.md)
export { guardedStep } from "./runtime/guarded-step.js";
export { WAKE_EDGES, type StepOutcome, type RouterStep } from "./exchange/wake-edges.js";
export {
  PipelineRouter,
  DEFAULT_PIPELINE_ROUTER_OPTIONS,
  type PipelineRouterDeps,
  type PipelineRouterOptions,
  type ReceiveOptions,
} from "./exchange/pipeline-router.js";
export { createPump, type PumpParts, type CreatePumpOptions, type ComposedPump } from "./exchange/create-pump.js";

// Replay
export {
  ReplayService,
  type ReplaySelection,
  type ReplayPreview,
  type ReplayResult,
  type ReplayPreflight,
  type ReplayPreflightDeps,
  type ReplayOptions,
  type ReplayServiceDeps,
} from "./replay/replay-service.js";
export { type ReplayOutcome } from "./replay/replay-simulation.js";
export { ReplayConflictError, isReplayConflict, type VersionMismatch } from "./replay/replay-conflict.js";
export { parseVersionKey } from "./replay/version-key.js";

// Maintenance jobs (seed 000 §6)
export type {
  MaintenanceStore,
  MaintenanceTx,
  MaintenanceWriteOptions,
  RetiredFlight,
  ReconcileEntry,
  ArchiveQuery,
} from "./jobs/maintenance-store.js";
export type { SnapshotLogRow, ArchivedRecord, AuditRow, RecordGroup } from "./processing/pipeline-store.js";
export { nextRunAt } from "./jobs/daily-schedule.js";
export { ScheduledJob, DEFAULT_SCHEDULED_JOB_OPTIONS, type JobSchedule, type ScheduledJobOptions } from "./jobs/scheduled-job.js";
export { HistorySweeper, DEFAULT_HISTORY_SWEEP_OPTIONS, type HistorySweepOptions } from "./jobs/history-sweeper.js";
export { SnapLogCleaner, DEFAULT_SNAP_LOG_CLEANUP_OPTIONS, type SnapLogCleanupOptions } from "./jobs/snap-log-cleaner.js";
export { ProcStateArchiver, DEFAULT_PROC_STATE_ARCHIVE_OPTIONS, type ProcStateArchiveOptions } from "./jobs/proc-state-archiver.js";
export { Reconciler, DEFAULT_RECONCILER_OPTIONS, type ReconcilerOptions, type ReconcileCounts } from "./jobs/reconciler.js";

// Upstream requests and reference data (SPEC §2.6)
export type { OutboundMailbox, OutboundRow, OutboundQuery } from "./ports/outbound-mailbox.js";
export { RequestStatus } from "./requests/request-status.js";
export { type RequestRecord, type RequestDraft, type RequestParams, type RequestCloseReason } from "./requests/request-record.js";
export { evolveRequest, IllegalRequestTransitionError } from "./requests/request-machine.js";
export { DEFAULT_REQUEST_OPTIONS, type RequestOptions } from "./requests/request-options.js";
export { MatchRule, matchReply } from "./requests/reply-match.js";
export { RequestInputError, isRequestInputError } from "./requests/request-input-error.js";
export { assertRequestFilter, type RequestStore, type RequestTx, type RequestFilter } from "./requests/request-store.js";
export { RequestCoordinator, type RequestCoordinatorDeps } from "./requests/request-coordinator.js";
export {
  referenceProcessor,
  DEFAULT_REFERENCE_PROCESSOR_OPTIONS,
  type ReferenceProcessorOptions,
} from "./processing/reference-processor.js";
export { type RefChange, type RefEntry } from "./requests/reference-entry.js";
export { referenceEvent, REFERENCE_PAYLOAD_SCHEMA_VERSION, type ReferencePayload } from "./requests/reference-events.js";
export { type ReferenceView } from "./requests/reference-view.js";
export { type RefFields, type RefRow } from "./model/reference-schema.js";
export { assertRefListQuery, type ReferenceReader, type RefListQuery } from "./requests/reference-reader.js";

// Lineage (issue 23): which messages made a flight or reference entry look like this
export {
  assertLineageQuery,
  flightLineageKey,
  referenceLineageKey,
  DEFAULT_LINEAGE_LIMIT,
  MAX_LINEAGE_LIMIT,
  type LineageReader,
  type LineageQuery,
  type LineagePage,
  type LineageVersion,
  type LineageEvent,
} from "./lineage/lineage-reader.js";
export { lineagePage, inLineage, type LineageEventRow, type LineageSourceRecord } from "./lineage/lineage-page.js";
