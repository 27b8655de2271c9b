/**
 * The request and reference-data parts of the msgx packages the runner wires. They are imported
 * from the package sources until the barrels of `@msgx/core` and `@msgx/adapters-pg` export them
 * (the export lines are in docs/requests.md); then this file becomes plain re-exports of those
 * packages, and nothing else in the runner changes.
 */
export type { OutboundMailbox } from "../../../core/src/ports/outbound-mailbox.js";
export { RequestCoordinator, type RequestStep } from "../../../core/src/requests/request-coordinator.js";
export { isRequestInputError } from "../../../core/src/requests/request-input-error.js";
export type { RequestParams, RequestRecord } from "../../../core/src/requests/request-record.js";
export { RequestStatus } from "../../../core/src/requests/request-status.js";
export type { RequestFilter } from "../../../core/src/requests/request-store.js";
export { referenceProcessor } from "../../../core/src/requests/reference-processor.js";
export type { RefEntry } from "../../../core/src/requests/reference-entry.js";
export type { ReferenceReader, RefListQuery } from "../../../core/src/requests/reference-reader.js";
export { PgRequestStore } from "../../../adapters-pg/src/requests/pg-request-store.js";
export { PgReferenceReader } from "../../../adapters-pg/src/requests/pg-reference-reader.js";
export { PgOutboundMailbox } from "../../../adapters-pg/src/requests/pg-outbound-mailbox.js";
export { createPgOutboundTable } from "../../../adapters-pg/src/requests/pg-outbound-schema.js";
