/**
 * `@msgx/core/fakes`: the in-memory implementation of every port, the manual clock, the recording
 * logger and tracer, and the fault plan. Plain code with no test framework behind it, so a service
 * can run on the fakes from ESM or CommonJS with only `@msgx/core` installed. The contract suites
 * and arbitraries, which need vitest and fast-check, are in `@msgx/core/testing`.
 */
export { ManualClock } from "./runtime/manual-clock.js";
export { RecordingLogger } from "./runtime/recording-logger.js";
export { InMemoryTracer, type RecordedSpan } from "./runtime/in-memory-tracer.js";
export { FaultPlan } from "./testing/fault-plan.js";
export { InMemoryMailbox, type FakeMailboxRow } from "./ports/in-memory-mailbox.js";
export {
  InMemoryPipelineStore,
  BACKFILL_FIRST_DELAY_MS,
  type InMemoryTables,
  type InMemorySnapLogRow,
} from "./processing/in-memory-pipeline-store.js";
export { InMemoryStatusReader } from "./processing/in-memory-status-reader.js";
export { InMemoryLeaseStore, type InMemoryLeaseRow } from "./leadership/in-memory-lease-store.js";
export { InMemoryRunnerPresence } from "./operations/in-memory-runner-presence.js";
export { InMemoryThroughputReader } from "./operations/in-memory-throughput-reader.js";
export { InMemoryOutboxStore } from "./delivery/in-memory-outbox-store.js";
export { InMemoryBroker, type BrokerRecord } from "./ports/in-memory-broker.js";
export { InMemoryFlightReader, type FlightTableSource } from "./flight/in-memory-flight-reader.js";
export { InMemoryLineageReader } from "./lineage/in-memory-lineage-reader.js";
export { InMemoryMaintenanceStore, type InMemoryMaintenanceTables } from "./jobs/in-memory-maintenance-store.js";
// Requests
export { InMemoryRequestStore, type InMemoryRequestBackend } from "./requests/in-memory-request-store.js";
export { InMemoryOutboundMailbox } from "./ports/in-memory-outbound-mailbox.js";
export { InMemoryReferenceReader } from "./requests/in-memory-reference-reader.js";
export { newRequestTables, type InMemoryRequestTables } from "./requests/in-memory-request-tables.js";
