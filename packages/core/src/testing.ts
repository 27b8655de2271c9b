export { ManualClock } from "./runtime/manual-clock.js";
export { RecordingLogger } from "./runtime/recording-logger.js";
export { InMemoryTracer, type RecordedSpan } from "./runtime/in-memory-tracer.js";
export { FaultPlan } from "./testing/fault-plan.js";
export { InMemoryMailbox, SUBSYSTEM_LIMITS, subsystemDefect, type FakeMailboxRow } from "./ports/in-memory-mailbox.js";
export {
  InMemoryPipelineStore,
  BACKFILL_FIRST_DELAY_MS,
  type InMemoryTables,
  type InMemorySnapLogRow,
} from "./processing/in-memory-pipeline-store.js";
export { describeMailboxContract, type MailboxHarness, type MailboxFeatures } from "./ports/mailbox.contract.js";
export {
  describePipelineStoreContract,
  sampleFlight,
  type PipelineStoreHarness,
} from "./processing/pipeline-store.contract.js";
export { decideGate, gateService, gateServiceControl, servicesRequired, type GateDecision, type ServiceGate } from "./testing/service-gate.js";
export {
  arbBodyTime,
  arbIsoLocalTime,
  arbWireText,
  arbValue,
  arbMeta,
  arbCollection,
  arbFlightRecord,
  arbXmlStyle,
  encodeBodyTime,
  encodeValue,
  escapeXml,
  flightRecordToXml,
  schdXml,
  messageXml,
  type XmlStyle,
} from "./testing/sis-xml.arbitraries.js";
export { InMemoryStatusReader } from "./processing/in-memory-status-reader.js";
export { InMemoryOutboxStore } from "./delivery/in-memory-outbox-store.js";
export { InMemoryBroker, type BrokerRecord } from "./ports/in-memory-broker.js";
export { describeOutboxStoreContract, type OutboxStoreContractSubject } from "./delivery/outbox-store.contract.js";
export { InMemoryFlightReader, type FlightTableSource } from "./flight/in-memory-flight-reader.js";
export { describeFlightReaderContract, type FlightReaderFixture } from "./flight/flight-reader.contract.js";
export { InMemoryReliableMessageStore } from "./reliable-message/in-memory-reliable-message-store.js";
export { InMemoryConsumeLog, type InMemoryConsumerTx } from "./reliable-message/in-memory-consume-log.js";
export { describeReliableMessageStoreContract, sampleReliableMessage, type ReliableMessageStoreContractSubject } from "./reliable-message/reliable-message-store.contract.js";
export { describeConsumeLogContract, type ConsumeLogContractSubject } from "./reliable-message/consume-log.contract.js";
// Task-event routing
export { InMemoryTaskStore, type InMemoryTaskTables } from "./task-routing/in-memory-task-store.js";
export { InMemoryTaskConsumeLogStore, type InMemoryTaskTxHandle } from "./task-routing/in-memory-task-consume-log-store.js";
export { describeTaskStoreContract, sampleNewTask, type TaskStoreContractSubject } from "./task-routing/task-store.contract.js";
export { InMemoryTaskDispatcher, type FakeExternalTask, type ScriptedDispatchFault } from "./task-routing/in-memory-task-dispatcher.js";
export { describeTaskDispatcherContract, type TaskDispatcherContractSubject } from "./task-routing/task-dispatcher.contract.js";
export { describeTaskConsumeLogStoreContract, sampleTaskConsumeWrite, type TaskConsumeLogStoreContractSubject } from "./task-routing/task-consume-log-store.contract.js";
export { InMemoryMaintenanceStore, type InMemoryMaintenanceTables } from "./jobs/in-memory-maintenance-store.js";
export { describeMaintenanceStoreContract, type MaintenanceStoreHarness } from "./jobs/maintenance-store.contract.js";
// Requests
export { InMemoryRequestStore, type InMemoryRequestBackend } from "./requests/in-memory-request-store.js";
export { InMemoryOutboundMailbox } from "./ports/in-memory-outbound-mailbox.js";
export { InMemoryReferenceReader } from "./requests/in-memory-reference-reader.js";
export { newRequestTables, type InMemoryRequestTables } from "./requests/in-memory-request-tables.js";
export { describeRequestStoreContract, sampleRequestDraft, type RequestStoreHarness } from "./processing/request-store.contract.js";
export { describeOutboundMailboxContract, type OutboundMailboxHarness } from "./ports/outbound-mailbox.contract.js";
