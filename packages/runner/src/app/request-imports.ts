/** The request and reference-data parts of the msgx packages the runner wires. */
export type { OutboundMailbox, RequestStep, RequestParams, RequestRecord, RequestFilter, RefEntry, ReferenceReader, RefListQuery } from "@msgx/core";
export { RequestCoordinator, isRequestInputError, RequestStatus, referenceProcessor } from "@msgx/core";
export { PgRequestStore, PgReferenceReader, PgOutboundMailbox, createPgOutboundTable } from "@msgx/adapters-pg";
