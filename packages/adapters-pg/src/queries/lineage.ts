import type { ErrorClass, LineageEventRow, LineageSourceRecord, Meta, ProcStatus } from "@msgx/core";
import { sql, type RawBuilder } from "kysely";
import { eventFromRow, type EventRow } from "../rows/event-row.js";
import { fromJson } from "../rows/values.js";
import type { Db } from "./db.js";

/** One event of a lineage read, with the record of the message that caused it (null columns when there is none). */
export interface LineageRow extends Omit<EventRow, "partition_key" | "traceparent" | "headers" | "attempts" | "next_attempt_at" | "last_error"> {
  readonly src_status: string | null;
  readonly src_meta: unknown;
  readonly src_error_class: string | null;
}

/** What a lineage read gives core's `lineagePage`: the events of the newest versions and their sources. */
export interface LineageRows {
  readonly events: readonly LineageEventRow[];
  readonly sources: ReadonlyMap<number, LineageSourceRecord>;
}

/**
 * Every event of the newest `versions` stored versions of record key `key` (below `beforeVersion`
 * when given) that a mailbox message caused (`source_msg_id > 0`, core's `inLineage`), each with
 * its message's record from `proc_state` or, once archived, `proc_state_hst`. One statement, so
 * one snapshot: both scans of `msg_event` are ranges of `msg_event_key_idx (partition_key,
 * event_id)`, bounded by the key's own events; each record, and each event's sent mark (the
 * events are read through `msg_event_state`), is one primary-key probe.
 */
export async function lineageRows(db: Db, key: string, versions: number, beforeVersion?: number): Promise<LineageRows> {
  const { rows } = await lineageStatement(key, versions, beforeVersion).execute(db);
  const sources = new Map<number, LineageSourceRecord>();
  const events = rows.map((r) => {
    const event = eventFromRow({ ...r, partition_key: key, traceparent: null, headers: null, attempts: 0, next_attempt_at: null, last_error: null });
    if (r.src_status !== null && !sources.has(event.sourceMsgId)) {
      sources.set(event.sourceMsgId, {
        msgId: event.sourceMsgId,
        status: r.src_status as ProcStatus,
        meta: r.src_meta === null || r.src_meta === undefined ? null : fromJson<Meta>(r.src_meta),
        errorClass: r.src_error_class as ErrorClass | null,
      });
    }
    return event;
  });
  return { events, sources };
}

/** The one statement of `lineageRows` (exported for the test that checks its plan uses `msg_event_key_idx`). */
export function lineageStatement(key: string, versions: number, beforeVersion?: number): RawBuilder<LineageRow> {
  const below = beforeVersion === undefined ? sql`` : sql`AND state_version < ${beforeVersion}::bigint`;
  return sql<LineageRow>`
    WITH versions AS (
      SELECT DISTINCT state_version FROM msg_event
      WHERE partition_key = ${key} AND source_msg_id > 0 ${below}
      ORDER BY state_version DESC LIMIT ${versions}::bigint
    )
    SELECT e.event_id, e.target, e.event_type, e.state_version, e.payload::text AS payload, e.source_msg_id, e.status,
           e.created_at, e.sent_at, e.kafka_partition, e.kafka_offset,
           src.status AS src_status, src.meta AS src_meta, src.error_class AS src_error_class
    FROM msg_event_state e
    JOIN versions v ON v.state_version = e.state_version
    LEFT JOIN LATERAL (
      SELECT p.status, p.meta, p.error_class FROM proc_state p WHERE p.msg_id = e.source_msg_id
      UNION ALL
      SELECT h.status, h.meta, h.error_class FROM proc_state_hst h WHERE h.msg_id = e.source_msg_id
      LIMIT 1
    ) src ON TRUE
    WHERE e.partition_key = ${key} AND e.source_msg_id > 0
    ORDER BY e.state_version DESC, e.event_id`;
}
