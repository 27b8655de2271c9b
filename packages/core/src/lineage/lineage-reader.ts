import type { CursorPage } from "../base/cursor-page.js";
import type { ErrorClass } from "../errors/error-class.js";
import { FLID_PATTERN } from "../flight/flight-reader.js";
import type { FieldChange } from "../model/field-diff.js";
import type { ProcStatus } from "../model/proc-record.js";
import type { DeliveryStatus, EventType, Target } from "../outbox/outbox-event.js";
import { referenceRecordKey } from "../requests/reference-events.js";

/** How many versions one lineage call lists when the caller does not say. */
export const DEFAULT_LINEAGE_LIMIT = 50;
/** The most versions one lineage call lists. */
export const MAX_LINEAGE_LIMIT = 500;

/** Which page of a key's versions to list. */
export interface LineageQuery {
  /** At most this many versions, 1 to {@link MAX_LINEAGE_LIMIT}. */
  readonly limit: number;
  /** Keyset paging: only versions below this one (a previous page's `next`). */
  readonly beforeVersion?: number;
}

/** The message that made a version: its `PROC_STATE` record (live or archived) and its META. */
export interface LineageSource {
  /** The mailbox id (`CMINMSGS.ID`). */
  readonly msgId: number;
  /** META TYPE (`SCHD`, `FLOP`, `AIRL` …); null when the record has no decoded META. */
  readonly type: string | null;
  /** META STYP (`DNLD`, `GTDT`, `NONE` …). */
  readonly subtype: string | null;
  /** META DTTM, airport local `yyyyMMddHHmmss`. */
  readonly dttm: string | null;
  /** The record's processing status now (a replayed message may have moved on). */
  readonly status: ProcStatus;
  readonly errorClass: ErrorClass | null;
}

/** One outbox event of a version and where it was published. */
export interface LineageEvent {
  /** `MSG_EVENT.EVENT_ID`: the `msgx-event-id` header of the record. */
  readonly eventId: number;
  readonly target: Target;
  readonly eventType: EventType;
  readonly status: DeliveryStatus;
  readonly sentAt: number | null;
  /** The broker's partition of the record, from its acknowledgement; null until then, or when the delivery could not tell. */
  readonly partition: number | null;
  /** The broker's offset of the record in that partition; null as `partition` is. */
  readonly offset: number | null;
}

/** One stored version of a flight or reference entry, with what made it and where it went. */
export interface LineageVersion {
  /** The flight's `stateVersion`, or the reference row's version. */
  readonly version: number;
  /** When the version was committed (its first event's `createdAt`), epoch ms. */
  readonly at: number;
  /** The message that made it; null when its record is in neither `PROC_STATE` nor `PROC_STATE_HST`. */
  readonly source: LineageSource | null;
  /** Every event of the version (one per target), ascending by `eventId`. */
  readonly events: readonly LineageEvent[];
  /**
   * `fieldDiff(previous version's value, this version's value)`. A version's value is the payload
   * of its first event (lowest `eventId`) that has one: for a flight the change-stream event,
   * written first and carrying the full state even in a tombstone; for a reference its one event,
   * null for a delete. The oldest stored version is compared with nothing, so it lists every field.
   */
  readonly changes: readonly FieldChange[];
}

/**
 * One page of a key's lineage, newest version first; `next` is the `beforeVersion` of the next page
 * (this page's oldest version), or null when no older version is stored.
 */
export type LineagePage = CursorPage<"versions", LineageVersion, number>;

/**
 * Read access to the lineage of a flight or reference entry: for each stored version, the message
 * that made it, the outbox events it wrote and where the broker put each one ("which messages made
 * flight X look like this"). It is read from the outbox (`MSG_EVENT`, never purged) and the
 * processing records (`PROC_STATE` and its archive `PROC_STATE_HST`), so it is kept as long as they
 * keep the rows (docs/lineage.md).
 *
 * Every implementation guarantees:
 * - A version is a `stateVersion` of the key's events caused by a mailbox message
 *   (`sourceMsgId > 0`): the flight's events are keyed by FLID, a reference entry's by
 *   `<TYPE>:<KEY>` (the Kafka record key). Task and reliable-message events, which no mailbox
 *   message causes, are never part of a lineage even when their key is the same text.
 * - Versions come newest first, strictly descending, at most `query.limit`, only those below
 *   `query.beforeVersion` when given; paging with `next` visits every stored version once, and
 *   every event of the key belongs to exactly one version.
 * - `changes` compares with the next older stored version even when that version is not on the
 *   page, so a version's changes do not depend on how the lineage is paged.
 * - Events show their delivery state as committed at the read (status, `sentAt`, placement), in
 *   one consistent snapshot; the read takes no locks and writes nothing.
 * - An unknown key is an empty page, not an error.
 *
 * @throws RangeError when `limit` is not an integer from 1 to {@link MAX_LINEAGE_LIMIT},
 *   `beforeVersion` is not a positive integer, a FLID is not a decimal id, or a reference type or
 *   key is empty (or the type holds a colon).
 */
export interface LineageReader {
  /** The versions of flight `flid`, newest first. */
  flightLineage(flid: string, query: LineageQuery): Promise<LineagePage>;
  /** The versions of reference entry `rtype`/`rkey`, newest first. */
  referenceLineage(rtype: string, rkey: string, query: LineageQuery): Promise<LineagePage>;
}

/** Throws the RangeError the port promises for a bad query. */
export function assertLineageQuery(query: LineageQuery): void {
  const { limit, beforeVersion } = query;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LINEAGE_LIMIT) {
    throw new RangeError(`limit must be an integer from 1 to ${MAX_LINEAGE_LIMIT}, got ${limit}`);
  }
  if (beforeVersion !== undefined && (!Number.isSafeInteger(beforeVersion) || beforeVersion < 1)) {
    throw new RangeError(`beforeVersion must be a positive integer, got ${beforeVersion}`);
  }
}

/** The record key of a flight's lineage, after the RangeError the port promises for a bad FLID. */
export function flightLineageKey(flid: string): string {
  if (!FLID_PATTERN.test(flid)) throw new RangeError(`a FLID is a decimal id, got ${JSON.stringify(flid)}`);
  return flid;
}

/** The record key of a reference entry's lineage (`<TYPE>:<KEY>`), after the RangeError the port promises. */
export function referenceLineageKey(rtype: string, rkey: string): string {
  if (rtype === "" || rtype.includes(":")) throw new RangeError(`a reference type is non-empty text without a colon, got ${JSON.stringify(rtype)}`);
  if (rkey === "") throw new RangeError("a reference key is non-empty text");
  return referenceRecordKey(rtype, rkey);
}
