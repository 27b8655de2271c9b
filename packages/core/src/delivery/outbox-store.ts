import type { OutboxEvent, Target } from "../outbox/outbox-event.js";
import type { DeliveryPlacement } from "../ports/delivery-port.js";

/**
 * The delivery side of the outbox (`MSG_EVENT`, in PostgreSQL). The pipeline writes the rows in
 * its own transaction (`PipelineTx.applyRun`); this port reads and settles them. One dispatcher
 * per target and one schd flusher write through it; they never race each other on a row.
 *
 * Every implementation guarantees:
 * - rows are returned as committed, ascending by `eventId` unless a member says otherwise;
 * - a row's `placement` is the one its `markSent` stored: null (or absent) until then;
 * - a payload comes back as it was written, key order included (the broker record is its JSON, and
 *   the same state must always give the same bytes); an event that carries `payloadJson` carries
 *   exactly that JSON text of its payload, and none when the payload is null;
 * - an event is "due" at `now` when `nextAttemptAt` is null or `nextAttemptAt <= now`;
 * - only PENDING rows change: settling a SENT or DEAD row again is a no-op, so a resend after a
 *   lost acknowledgement never moves a row backwards or rewrites its first `sentAt`;
 * - each member is one statement (atomic on its own); driver errors leave as `MsgxError`
 *   (connection loss and timeouts as `DEPENDENCY_UNAVAILABLE`, which the drivers treat as an outage).
 */
/** A sent batch's mark: the arguments of `OutboxStore.markSent`, as `markSentAndRead` takes them. */
export interface SentMark {
  readonly eventIds: readonly number[];
  readonly at: number;
  readonly placements?: readonly (DeliveryPlacement | null)[];
}

export interface OutboxStore {
  /**
   * The head run of `target`: its PENDING events in `eventId` order, at most `limit`, stopping
   * before the first one that is not due. A head in backoff therefore yields `[]` and blocks only
   * its own target; SENT and DEAD rows are skipped (a DEAD event no longer blocks). Served by an
   * index on `(target, status, eventId)`.
   *
   * With `afterEventId`, the same run taken from the first PENDING event above that id: a relay
   * reads its next batch this way while the current one (ending at `afterEventId`) is in flight.
   */
  pending(target: Target, now: number, limit: number, afterEventId?: number): Promise<readonly OutboxEvent[]>;

  /** The oldest PENDING event of `target`, due or not (what a blocked dispatcher waits for). */
  head(target: Target): Promise<OutboxEvent | undefined>;

  /**
   * Marks the PENDING events among `eventIds` SENT with `sentAt = at`, in one statement: all of
   * them or none. `placements[i]` is where the broker put the record of `eventIds[i]` (as
   * `DeliveryPort.send` returned it), stored as that event's `placement`; a missing or null entry
   * stores null. Ids that are unknown, SENT or DEAD are left as they are, placement included: the
   * first mark's placement stays (a resend after a lost mark is a second copy on the broker, and
   * only the mark that lands records where). It may commit without waiting for durability: a
   * mark lost in a database crash only resends acknowledged records, which delivery allows; it
   * must never be lost while a later settle of the same store is kept.
   */
  markSent(eventIds: readonly number[], at: number, placements?: readonly (DeliveryPlacement | null)[]): Promise<void>;

  /**
   * `markSent(mark.eventIds, mark.at, mark.placements)` and then `pending(target, now, limit,
   * afterEventId)`, in one round trip and one statement: the mark commits with the read, and if
   * it fails neither happened. `afterEventId` must be above every id of the mark (a relay marks
   * the batch before the one in flight and reads the run behind the one in flight), so the mark
   * never changes what the read returns. Throws a `RangeError` otherwise.
   */
  markSentAndRead(mark: SentMark, target: Target, now: number, limit: number, afterEventId: number): Promise<readonly OutboxEvent[]>;

  /**
   * Housekeeping off the relay's path: an implementation that keeps sent marks apart from the
   * event rows (so that a mark does not rewrite the row) moves up to `limit` of them into the
   * rows and returns how many it moved; one that marks the rows themselves returns 0. No reader
   * can tell a folded mark from an unfolded one: every member answers the same before and after.
   */
  foldSent(limit: number): Promise<number>;

  /**
   * Records a failed delivery try of a PENDING event: `attempts` (the new total),
   * `nextAttemptAt` (when it is due again) and `lastError`. The event stays PENDING.
   */
  recordFailure(eventId: number, attempts: number, nextAttemptAt: number, error: string): Promise<void>;

  /**
   * Ends a PENDING event DEAD: it is kept as the dead-letter record with `lastError = error` and
   * `attempts` (the count that exhausted it), and it no longer blocks its target.
   */
  markDead(eventId: number, error: string, attempts: number): Promise<void>;

  /**
   * Every PENDING `KAFKA:schd` event, due or not, oldest first (`eventId` ascending), at most
   * `limit`. The flusher merges them per FLID and applies each FLID's backoff itself.
   */
  pendingSchd(limit: number): Promise<readonly OutboxEvent[]>;

  /**
   * The targets starting with `prefix` that have PENDING events (in backoff included), ascending,
   * each once: a relay starts one dispatcher per target it finds (every reliable-message queue,
   * `KAFKA:rmq.`, has its own target). Served by the partial index on pending rows.
   */
  pendingTargets(prefix: string): Promise<readonly Target[]>;

  /** How many events of `target` are PENDING (in backoff included). */
  countPending(target: Target): Promise<number>;

  /** The stored rows among `eventIds` (any status), ascending; unknown ids are absent. */
  get(eventIds: readonly number[]): Promise<readonly OutboxEvent[]>;
}

/** What `markSentAndRead` requires of its arguments (every implementation checks it the same way). */
export function assertReadAboveMark(eventIds: readonly number[], afterEventId: number): void {
  if (eventIds.some((id) => id >= afterEventId)) throw new RangeError("markSentAndRead reads above every marked id");
}
