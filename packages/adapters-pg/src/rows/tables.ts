import type { Generated, GeneratedAlways } from "kysely";
import type { EmbeddedMailboxDatabase } from "../mailbox/pg-mailbox-schema.js";
import type { ReliableMessageDatabase } from "../reliable/reliable-message-tables.js";
import type { EmbeddedOutboundDatabase } from "../requests/pg-outbound-schema.js";
import type { RequestsDatabase } from "../requests/request-tables.js";
import type { TaskRoutingDatabase } from "../tasks/task-tables.js";
import type { Int8, Timestamp } from "./column-types.js";

/** `proc_state`. */
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

/** `proc_state_hst`: terminal records the archive job moved out of `proc_state`. */
export interface ProcStateHstTable extends ProcStateTable {
  archived_at: Timestamp;
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
  /** Where the broker put the record (from its ack at mark-sent); NULL while unsent or unknown. */
  kafka_partition: number | null;
  kafka_offset: Int8 | null;
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
  /** When the holder's lease ends by the database clock; NULL when free (`0020_leadership_lease`). */
  lease_until: Timestamp | null;
}

/** One running runner, leader or standby (`0019_console`); times from the database clock. */
export interface RunnerPresenceTable {
  runner_id: string;
  host: string;
  pid: number;
  role: "leader" | "standby";
  epoch: Int8 | null;
  started_at: Timestamp;
  seen_at: Timestamp;
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
  /** Generated from `scalars` (the columns queries filter on). */
  alcd: GeneratedAlways<string | null>;
  flno: GeneratedAlways<string | null>;
  mvin: GeneratedAlways<string | null>;
  sodt: GeneratedAlways<string | null>;
  updated_at: Timestamp;
}

/** One resource-collection table (`flight_rout`, `flight_erut`, …: see `COLLECTION_TABLES`). */
export interface FlightCollectionTable {
  flid: string;
  seq_key: string;
  ord: number;
  row_values: unknown;
}

/** `flight_schd_hst`: one row per retirement of a flight. */
export interface FlightSchdHstTable {
  hst_id: Generated<Int8>;
  flid: string;
  operation_day: string;
  state_version: Int8;
  deleted: boolean;
  tombstone_version: Int8 | null;
  last_msg_id: Int8;
  final_state: unknown;
  retired_at: Timestamp;
}

/** `schd_snap_log`: one row per schedule snapshot received (kept 90 days). */
export interface SchdSnapLogTable {
  snap_id: Generated<Int8>;
  msg_id: Int8;
  styp: string;
  operation_day: string | null;
  declared_recs: number | null;
  flights: number;
  outcome: string;
  reason: string | null;
  logged_at: Timestamp;
}

/** The collection tables by name (`COLLECTION_TABLES` keeps the two equal at compile time). */
export type FlightCollectionTableName =
  | "flight_rout"
  | "flight_erut"
  | "flight_psdt"
  | "flight_gtdt"
  | "flight_ckdt"
  | "flight_cldt"
  | "flight_chdt"
  | "flight_dely"
  | "flight_chot"
  | "flight_abtm"
  | "flight_srvt"
  | "flight_vipf"
  | "flight_vipt";

/**
 * msgx's database for kysely: every table the migrations create, one interface per table, plus the
 * embedded runner's mailboxes under their default names. What the stores' constructors take
 * (`Kysely<MsgxDatabase>`); a database shared with an application's own tables is typed
 * `Kysely<MsgxDatabase & AppDatabase>` by the application and passed with a cast to
 * `Kysely<MsgxDatabase>`: kysely's types are invariant in their database.
 */
export interface MsgxDatabase
  extends Record<FlightCollectionTableName, FlightCollectionTable>,
    ReliableMessageDatabase,
    TaskRoutingDatabase,
    RequestsDatabase,
    EmbeddedMailboxDatabase,
    EmbeddedOutboundDatabase {
  proc_state: ProcStateTable;
  proc_state_hst: ProcStateHstTable;
  flight_schd_hst: FlightSchdHstTable;
  schd_snap_log: SchdSnapLogTable;
  msg_identity: MsgIdentityTable;
  msg_event: MsgEventTable;
  backfill_todo: BackfillTodoTable;
  intake_state: IntakeStateTable;
  leadership: LeadershipTable;
  runner_presence: RunnerPresenceTable;
  replay_audit: ReplayAuditTable;
  flight_schd: FlightSchdTable;
}
