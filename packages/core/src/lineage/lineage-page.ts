import { fieldDiff } from "../model/field-diff.js";
import type { ProcRecord } from "../model/proc-record.js";
import type { OutboxEvent } from "../outbox/outbox-event.js";
import type { LineageEvent, LineagePage, LineageSource, LineageVersion } from "./lineage-reader.js";

/** What a lineage reads of a stored `MSG_EVENT` row (an `OutboxEvent` is one). */
export type LineageEventRow = Pick<
  OutboxEvent,
  "eventId" | "target" | "eventType" | "stateVersion" | "payload" | "sourceMsgId" | "status" | "sentAt" | "createdAt" | "placement"
>;

/**
 * Whether an outbox row is part of the lineage of record key `key` (below `beforeVersion` when
 * given): its key, and caused by a mailbox message (task and reliable-message events carry
 * `sourceMsgId` 0). The rule every `LineageReader` selects by; an adapter's SQL states the same.
 */
export function inLineage(row: Pick<OutboxEvent, "partitionKey" | "sourceMsgId" | "stateVersion">, key: string, beforeVersion?: number): boolean {
  return row.partitionKey === key && row.sourceMsgId > 0 && (beforeVersion === undefined || row.stateVersion < beforeVersion);
}

/** What a lineage reads of the record (`PROC_STATE` or `PROC_STATE_HST`) of the message that made a version. */
export type LineageSourceRecord = Pick<ProcRecord, "msgId" | "status" | "meta" | "errorClass">;

/** The lineage view of the record of the message that made a version. */
export function lineageSource(record: LineageSourceRecord): LineageSource {
  return {
    msgId: record.msgId,
    type: record.meta?.type ?? null,
    subtype: record.meta?.styp ?? null,
    dttm: record.meta?.dttm ?? null,
    status: record.status,
    errorClass: record.errorClass,
  };
}

/**
 * One lineage page from the rows of a key's newest versions: `rows` must hold every event of
 * the newest `limit + 1` stored versions in range (any order; rows of older versions are ignored),
 * since the one past the page is what its oldest version's `changes` compare with and what tells
 * whether there is a `next` page. `sourceOf` finds the record (live or archived) of a mailbox id.
 * Pure: the same rows give the same page.
 */
export function lineagePage(rows: readonly LineageEventRow[], sourceOf: (msgId: number) => LineageSourceRecord | undefined, limit: number): LineagePage {
  const byVersion = new Map<number, LineageEventRow[]>();
  for (const row of rows) {
    const list = byVersion.get(row.stateVersion);
    if (list) list.push(row);
    else byVersion.set(row.stateVersion, [row]);
  }
  const newest = [...byVersion.keys()].sort((a, b) => b - a).slice(0, limit + 1);
  const events = newest.map((v) => [...byVersion.get(v)!].sort((a, b) => a.eventId - b.eventId));
  const values = events.map(versionValue);
  const versions = newest.slice(0, limit).map((version, i): LineageVersion => {
    const own = events[i]!;
    const record = sourceOf(own[0]!.sourceMsgId);
    return {
      version,
      at: Math.min(...own.map((e) => e.createdAt)),
      source: record === undefined ? null : lineageSource(record),
      events: own.map(lineageEvent),
      changes: fieldDiff(i + 1 < values.length ? values[i + 1] : null, values[i]),
    };
  });
  return { versions, next: newest.length > limit ? versions.at(-1)!.version : null };
}

/** A version's value: the payload of its first event that has one (see `LineageVersion.changes`), else null. */
function versionValue(events: readonly LineageEventRow[]): unknown {
  for (const e of events) {
    const payload = e.payload;
    if (payload !== null && payload !== undefined) return payload;
  }
  return null;
}

function lineageEvent(e: LineageEventRow): LineageEvent {
  return {
    eventId: e.eventId,
    target: e.target,
    eventType: e.eventType,
    status: e.status,
    sentAt: e.sentAt,
    partition: e.placement?.partition ?? null,
    offset: e.placement?.offset ?? null,
  };
}
