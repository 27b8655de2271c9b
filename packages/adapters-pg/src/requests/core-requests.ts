/**
 * The request and reference-data parts of `@msgx/core` this adapter builds on. Imported from the
 * core sources until the `@msgx/core` barrel exports them (the export lines are listed in the
 * request work's notes); then this file becomes plain re-exports of `@msgx/core`.
 */
export type { OutboundMailbox, OutboundQuery, OutboundRow } from "../../../core/src/ports/outbound-mailbox.js";
export type { RequestCloseReason, RequestDraft, RequestParams, RequestRecord } from "../../../core/src/requests/request-record.js";
export type { RequestStatus } from "../../../core/src/requests/request-status.js";
export type { MatchRule } from "../../../core/src/requests/reply-match.js";
export { assertRequestFilter, type RequestFilter, type RequestStore, type RequestTx } from "../../../core/src/requests/request-store.js";
export type { RefChange, RefEntry } from "../../../core/src/requests/reference-entry.js";
export { assertRefListQuery, type RefListQuery, type ReferenceReader } from "../../../core/src/requests/reference-reader.js";
