import type { OutboxEventDraft } from "@msgx/core";
import { sql } from "kysely";
import type { Db } from "../../operations/db.js";
import { toNumber } from "../../rows/values.js";
import { ts } from "../reliable-message-row.js";

/** Appends one PENDING outbox row to `msg_event` (the table the relay reads); returns its EVENT_ID. */
export async function insertMessageEvent(db: Db, e: OutboxEventDraft, now: number): Promise<number> {
  const payload = e.payload === undefined || e.payload === null ? null : JSON.stringify(e.payload);
  const { rows } = await sql<{ event_id: unknown }>`
    INSERT INTO msg_event (target, partition_key, event_type, state_version, payload, source_msg_id, traceparent,
                           status, attempts, created_at)
    VALUES (${e.target}, ${e.partitionKey}, ${e.eventType}, ${e.stateVersion}::bigint, ${payload}::json,
            ${e.sourceMsgId}::bigint, ${e.traceparent ?? null}, 'PENDING', 0, ${ts(now)})
    RETURNING event_id`.execute(db);
  return toNumber(rows[0]!.event_id);
}
