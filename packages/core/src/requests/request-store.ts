import type { RequestDraft, RequestRecord } from "./request-record.js";
import type { RequestStatus } from "./request-status.js";

/** Which requests to list: newest first (descending id), every field optional but `limit`. */
export interface RequestFilter {
  readonly statuses?: readonly RequestStatus[];
  readonly requestType?: string;
  /** Only requests with a smaller id (paging). */
  readonly beforeId?: string;
  /** 1–1000. */
  readonly limit: number;
}

/** One transaction of the request store: registration (expire the old, count, insert) is atomic. */
export interface RequestTx {
  /**
   * Locks our SEQN counter of `sndr` for the rest of the transaction and returns the last SEQN
   * issued (null: none yet). Taken first by every registration, so registrations serialize.
   */
  lastSeqn(sndr: string): Promise<number | null>;
  /** Records `seqn` as the last issued for `sndr`. */
  saveSeqn(sndr: string, seqn: number): Promise<void>;
  /** The open request (REGISTERED, SENT or WAITING) of `requestType`, locked; undefined when none. */
  openOfType(requestType: string): Promise<RequestRecord | undefined>;
  /**
   * Inserts a new request and returns it with the id the store gave it (ascending: a later
   * registration gets a larger id). A second open request of one type is refused with
   * `MsgxError("CONFLICT")` (the database's unique index), and the transaction fails.
   */
  insert(draft: RequestDraft): Promise<RequestRecord>;
  /** As {@link RequestStore.update}, inside the transaction. */
  update(next: RequestRecord, expectedVersion: number): Promise<boolean>;
}

/**
 * Upstream request tracking (`REQ_TRACK`, in PostgreSQL beside the pipeline tables). The records
 * are decided by the pure machine (`evolveRequest`); the store only keeps them.
 *
 * Every implementation guarantees:
 * - `update` is a compare-and-set: it replaces the stored request only if it still has
 *   `expectedVersion`, and returns whether it did. Of two writers expecting the same version at
 *   most one succeeds; a lost compare-and-set writes nothing and never throws for it.
 * - `transaction` commits everything its function wrote, or nothing when it throws.
 * - The pipeline transaction (`PipelineTx.openRequests` / `applyRun`) reads and closes requests
 *   under the same rules: a request it closed is not changed by a concurrent `update` expecting
 *   the version it had, and vice versa.
 * - Times are epoch milliseconds, stored to the millisecond; reads see committed data.
 * - Driver errors leave as `MsgxError` (connection loss and timeouts: `DEPENDENCY_UNAVAILABLE`).
 */
export interface RequestStore {
  transaction<T>(fn: (tx: RequestTx) => Promise<T>): Promise<T>;
  /** Compare-and-set on `version` (see above). */
  update(next: RequestRecord, expectedVersion: number): Promise<boolean>;
  get(requestId: string): Promise<RequestRecord | undefined>;
  /** Every open request (REGISTERED, SENT, WAITING), ascending by id. */
  open(): Promise<readonly RequestRecord[]>;
  /** Requests matching `filter`, newest first. */
  list(filter: RequestFilter): Promise<readonly RequestRecord[]>;
}

/** Refuses a filter outside its documented domain (a caller bug). */
export function assertRequestFilter(f: RequestFilter): void {
  if (!Number.isInteger(f.limit) || f.limit < 1 || f.limit > 1000) throw new RangeError(`request list limit must be 1–1000, not ${f.limit}`);
  if (f.beforeId !== undefined && !/^\d+$/.test(f.beforeId)) throw new RangeError(`request id must be digits, not ${JSON.stringify(f.beforeId)}`);
}
