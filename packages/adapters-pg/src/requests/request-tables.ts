import type { ColumnType, Generated } from "kysely";
import type { Int8, Jsonb, Timestamp } from "../rows/column-types.js";

/** A column with a default: optional on insert. */
type Defaulted<T> = ColumnType<T, T | undefined, T>;

/** `req_track`: the upstream requests (migrations `requestsReferenceMigration`, then `requestsMigration`). */
export interface ReqTrackTable {
  req_id: Generated<Int8>;
  req_type: string;
  /** REGISTERED, SENT, WAITING, DONE or EXPIRED. */
  status: string;
  echo: Defaulted<unknown>;
  outbound_id: Int8 | null;
  registered_at: Timestamp;
  sent_at: Timestamp | null;
  deadline_at: Timestamp | null;
  closed_at: Timestamp | null;
  reply_msg_id: Int8 | null;
  /** exact or fallback. */
  match_mode: string | null;
  version: Defaulted<number>;
  /** RQFD or RQRD. */
  kind: Defaulted<string>;
  rtype: string | null;
  range_from: string | null;
  range_to: string | null;
  sndr: Defaulted<string>;
  seqn: ColumnType<string | number, number | undefined, number>;
  dttm: Defaulted<string>;
  routing_id: Defaulted<string>;
  raw_xml: Defaulted<string>;
  requested_by: Defaulted<string>;
  send_attempts: Defaulted<number>;
  last_attempt_at: Timestamp | null;
  next_attempt_at: Timestamp | null;
  last_error: string | null;
  picked_up_at: Timestamp | null;
  /** answered, timeout or superseded. */
  close_reason: string | null;
  reply_dttm: string | null;
  reply_at: Timestamp | null;
  match_detail: string | null;
}

/** `req_counter`: the last SEQN per sender. */
export interface ReqCounterTable {
  sndr: string;
  last_seqn: Int8 | null;
}

/** `ref_master`: reference data received from the upstream, by (type, key). */
export interface RefMasterTable {
  rtype: string;
  rkey: string;
  fields: Jsonb;
  deleted: Defaulted<boolean>;
  last_msg_id: Int8;
  updated_at: Timestamp;
  version: Defaulted<number>;
}

/** The upstream requests' and reference data's tables in msgx's database. */
export interface RequestsDatabase {
  req_track: ReqTrackTable;
  req_counter: ReqCounterTable;
  ref_master: RefMasterTable;
}
