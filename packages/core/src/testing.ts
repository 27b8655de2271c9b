/**
 * `@msgx/core/testing`: the contract suite of every port, the arbitraries and the service gate, for
 * an adapter (ours or a third party's) to prove it conforms. They need vitest and fast-check, so
 * this entry is ESM-only; it re-exports `@msgx/core/fakes` so a spec needs one import.
 */
export * from "./fakes.js";
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
export { describeOutboxStoreContract, type OutboxStoreContractSubject } from "./delivery/outbox-store.contract.js";
export { describeDeliveryPortContract, type DeliveryPortContractSubject, type PlacedRecord } from "./ports/delivery-port.contract.js";
export { describeFlightReaderContract, type FlightReaderFixture } from "./flight/flight-reader.contract.js";
export { describeLineageReaderContract, type LineageReaderFixture } from "./lineage/lineage-reader.contract.js";
export { describeLeaseStoreContract, type LeaseStoreFixture } from "./leadership/lease-store.contract.js";
export { describeRunnerPresenceContract, type RunnerPresenceFixture } from "./operations/runner-presence.contract.js";
export { describeThroughputReaderContract, type ThroughputReaderFixture, type ThroughputRecordSeed } from "./operations/throughput-reader.contract.js";
export { describeMaintenanceStoreContract, type MaintenanceStoreHarness } from "./jobs/maintenance-store.contract.js";
// Requests
export { describeRequestStoreContract, sampleRequestDraft, type RequestStoreHarness } from "./processing/request-store.contract.js";
export { describeOutboundMailboxContract, type OutboundMailboxHarness } from "./ports/outbound-mailbox.contract.js";

// Core's internals the suites of the other packages drive directly: the processing machine, the pump's
// and the router's steps and failpoints, the schema tables of the fixtures.
export { SCALAR_NAMES, COLLECTION_NAMES } from "./model/flight-schema.js";
export { isTerminal } from "./model/proc-record.js";
export { SpanName } from "./runtime/tracer.js";
export { encodedRecordBytes } from "./outbox/record-size.js";
export { type DeliveryFailpoint } from "./delivery/delivery-deps.js";
export { evolveProc, newProcRecord, type ProcEvent } from "./processing/proc-machine.js";
export { decideExhaust } from "./processing/decide-run.js";
export { type PumpStep, type PumpFailpoint } from "./processing/pump.js";
export { LeaderMemory } from "./processing/leader-memory.js";
export { runBehind, speculationVerdict, stateAfter, Speculation, type SpeculationCheck } from "./processing/speculation.js";
export { type BreakerCell, type StepGuard } from "./runtime/guarded-step.js";
export { PipelineStep } from "./exchange/wake-edges.js";
export { type ProcessedStep } from "./exchange/pipeline-router.js";
export { REFERENCE_SCHEMAS } from "./model/reference-schema.js";
