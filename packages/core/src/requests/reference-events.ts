import type { RefFields } from "../model/reference-schema.js";
import { EventType, type OutboxEventDraft, type Target } from "../outbox/outbox-event.js";
import type { RefChange } from "./reference-entry.js";

export const REFERENCE_PAYLOAD_SCHEMA_VERSION = 1;

/**
 * The record value of a reference UPSERT (docs/events.md "Reference events"): the full record
 * after the change, never a diff. A delete has no value (a Kafka tombstone).
 */
export interface ReferencePayload {
  readonly schemaVersion: typeof REFERENCE_PAYLOAD_SCHEMA_VERSION;
  /** The reference type (META TYPE, e.g. `AIRL`). */
  readonly type: string;
  /** The key element's text, as sent. */
  readonly key: string;
  /** The row's version after the change (also the `msgx-state-version` header). */
  readonly version: number;
  /** Mailbox id of the message that made the change. */
  readonly lastMsgId: number;
  /** META DTTM (airport local `yyyyMMddHHmmss`) of that message. */
  readonly lastSrcDttm: string;
  readonly fields: RefFields;
}

/** The record key of a reference row: `<TYPE>:<KEY>` (TYPE has no colon; KEY is as sent). */
export const referenceRecordKey = (rtype: string, rkey: string): string => `${rtype}:${rkey}`;

/**
 * The one outbox event of a reference change, for the compacted reference topic: an UPSERT with
 * the full record, or for a delete a TOMBSTONE with payload `null`. Its `stateVersion` is the
 * row's new version.
 */
export function referenceEvent(change: RefChange, srcDttm: string, target: Target): OutboxEventDraft {
  const common = { target, partitionKey: referenceRecordKey(change.rtype, change.rkey), stateVersion: change.version, sourceMsgId: change.msgId };
  if (change.deleted) return { ...common, eventType: EventType.TOMBSTONE, payload: null };
  const payload: ReferencePayload = {
    schemaVersion: REFERENCE_PAYLOAD_SCHEMA_VERSION,
    type: change.rtype,
    key: change.rkey,
    version: change.version,
    lastMsgId: change.msgId,
    lastSrcDttm: srcDttm,
    fields: change.fields,
  };
  return { ...common, eventType: EventType.UPSERT, payload };
}
