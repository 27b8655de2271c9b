/** The request and reference-data parts of `@msgx/core` this adapter builds on. */
export type { OutboundMailbox, OutboundQuery, OutboundRow, RequestCloseReason, RequestDraft, RequestParams, RequestRecord, RequestStatus, MatchRule, RequestFilter, RequestStore, RequestTx, RefChange, RefEntry, RefFields, RefListQuery, ReferenceReader } from "@msgx/core";
export { assertRequestFilter, assertRefListQuery } from "@msgx/core";
