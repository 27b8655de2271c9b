export { ManualClock } from "./manual-clock.js";
export { FaultPlan } from "./fault-plan.js";
export { InMemoryMailbox, SUBSYSTEM_LIMITS, subsystemDefect, type FakeMailboxRow } from "./in-memory-mailbox.js";
export {
  InMemoryPipelineStore,
  BACKFILL_FIRST_DELAY_MS,
  type InMemoryTables,
  type InMemorySnapLogRow,
} from "./in-memory-pipeline-store.js";
export { describeMailboxContract, type MailboxHarness, type MailboxFeatures } from "./mailbox.contract.js";
export {
  describePipelineStoreContract,
  sampleFlight,
  type PipelineStoreHarness,
} from "./pipeline-store.contract.js";
export { decideGate, gateService, gateServiceControl, servicesRequired, type GateDecision, type ServiceGate } from "./service-gate.js";
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
} from "./sis-xml.arbitraries.js";
export { InMemoryStatusReader } from "./in-memory-status-reader.js";
export { InMemoryOutboxStore } from "./in-memory-outbox-store.js";
export { InMemoryBroker, type BrokerRecord } from "./in-memory-broker.js";
export { describeOutboxStoreContract, type OutboxStoreContractSubject } from "./outbox-store.contract.js";
export { InMemoryFlightReader, type FlightTableSource } from "../flight/in-memory-flight-reader.js";
export { describeFlightReaderContract, type FlightReaderFixture } from "../flight/flight-reader.contract.js";
export { InMemoryReliableMessageStore } from "../reliable-message/in-memory-reliable-message-store.js";
export { InMemoryConsumeLog, type InMemoryConsumerTx } from "../reliable-message/in-memory-consume-log.js";
export { describeReliableMessageStoreContract, sampleReliableMessage, type ReliableMessageStoreContractSubject } from "../reliable-message/reliable-message-store.contract.js";
export { describeConsumeLogContract, type ConsumeLogContractSubject } from "../reliable-message/consume-log.contract.js";
// Task-event routing
export { InMemoryTaskStore, type InMemoryTaskTables } from "../task-routing/in-memory-task-store.js";
export { InMemoryTaskConsumeLogStore, type InMemoryTaskTxHandle } from "../task-routing/in-memory-task-consume-log-store.js";
export { describeTaskStoreContract, sampleNewTask, type TaskStoreContractSubject } from "../task-routing/task-store.contract.js";
export { describeTaskConsumeLogStoreContract, sampleTaskConsumeWrite, type TaskConsumeLogStoreContractSubject } from "../task-routing/task-consume-log-store.contract.js";
export { InMemoryArchivingPipelineStore } from "../jobs/in-memory-archiving-pipeline-store.js";
export { InMemoryMaintenanceStore, type InMemoryMaintenanceTables } from "../jobs/in-memory-maintenance-store.js";
export { describeMaintenanceStoreContract, type MaintenanceStoreHarness } from "../jobs/maintenance-store.contract.js";
// Requests
export { InMemoryRequestStore, type InMemoryRequestBackend } from "../requests/in-memory-request-store.js";
export { InMemoryOutboundMailbox } from "../requests/in-memory-outbound-mailbox.js";
export { InMemoryReferenceReader } from "../requests/in-memory-reference-reader.js";
export { newRequestTables, type InMemoryRequestTables } from "../requests/in-memory-request-tables.js";
export { describeRequestStoreContract, sampleRequestDraft, type RequestStoreHarness } from "../requests/request-store.contract.js";
export { describeOutboundMailboxContract, type OutboundMailboxHarness } from "../requests/outbound-mailbox.contract.js";
