import type { ColumnType, Generated } from "kysely";

/** What a driver gives for `bigint` (node-postgres: string; PGlite: number). */
type Int8 = ColumnType<string | number, number, number>;
type Timestamp = ColumnType<Date, Date, Date>;

/** `proc_state` (and `proc_state_hst` without `archived_at`). */
export interface ProcStateTable {
  msg_id: Int8;
  status: string;
  attempts: number;
  next_attempt_at: Timestamp | null;
  head_since: Timestamp | null;
  identity_key: string | null;
  meta: unknown;
  error_class: string | null;
  reason: string | null;
  history: unknown;
  received_at: Timestamp;
  updated_at: Timestamp;
  traceparent: string | null;
}

export interface MsgIdentityTable {
  identity_key: string;
  msg_id: Int8;
  bound_at: Timestamp;
  /** SHA-256 hex of the binding message's raw text; NULL for bindings older than 0012. */
  content_hash: string | null;
}

export interface MsgEventTable {
  event_id: Generated<Int8>;
  target: string;
  partition_key: string;
  event_type: string;
  state_version: Int8;
  payload: unknown;
  source_msg_id: Int8;
  traceparent: string | null;
  /** Extra record headers (a JSON object of strings), sent as stored; NULL for none. */
  headers: unknown;
  status: string;
  attempts: number;
  next_attempt_at: Timestamp | null;
  last_error: string | null;
  created_at: Timestamp;
  sent_at: Timestamp | null;
}

export interface BackfillTodoTable {
  msg_id: Int8;
  processed_at: Timestamp;
  meta: unknown;
  attempts: number;
  next_attempt_at: Timestamp;
  last_error: string | null;
}

export interface IntakeStateTable {
  id: Generated<number>;
  horizon: Int8;
  updated_at: Timestamp;
}

export interface LeadershipTable {
  name: string;
  epoch: Int8;
  holder: string | null;
  acquired_at: Timestamp | null;
}

export interface ReplayAuditTable {
  audit_id: Generated<Int8>;
  at: Timestamp;
  operator: string;
  action: string;
  msg_ids: (string | number)[];
  detail: string;
}

export interface FlightSchdTable {
  flid: string;
  ffid: string | null;
  operation_day: string | null;
  state_version: Int8;
  last_msg_id: Int8;
  last_src_dttm: string;
  deleted: boolean;
  scalars: unknown;
  collections_known: string[];
  updated_at: Timestamp;
}

/** The tables the pipeline store reads through the query builder. */
export interface MsgxDatabase {
  proc_state: ProcStateTable;
  msg_identity: MsgIdentityTable;
  msg_event: MsgEventTable;
  backfill_todo: BackfillTodoTable;
  intake_state: IntakeStateTable;
  leadership: LeadershipTable;
  replay_audit: ReplayAuditTable;
  flight_schd: FlightSchdTable;
}
