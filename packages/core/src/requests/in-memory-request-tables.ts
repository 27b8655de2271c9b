import type { RefEntry } from "./reference-entry.js";
import type { RequestRecord } from "./request-record.js";

/**
 * The request and reference tables of the in-memory fakes. They live in the
 * `InMemoryPipelineStore`'s tables (`requestTables`) so the pipeline transaction and the request
 * store see one state, as `REQ_TRACK` and `REF_MASTER` share the pipeline's database.
 */
export interface InMemoryRequestTables {
  /** By request id. */
  readonly requests: Map<string, RequestRecord>;
  /** Last SEQN issued, by SNDR. */
  readonly seqns: Map<string, number>;
  /** By `refKey(rtype, rkey)`. */
  readonly references: Map<string, RefEntry>;
  nextRequestId: number;
}

export const newRequestTables = (): InMemoryRequestTables => ({ requests: new Map(), seqns: new Map(), references: new Map(), nextRequestId: 1 });
