import type { OutboxEvent } from "../outbox/outbox-event.js";

/**
 * The pending schd events of one FLID, merged (seed 000 §5.2): the newest one is sent and stands
 * for all of them. The FLID's backoff is carried by its events: a failed flush records the same
 * attempts and `nextAttemptAt` on every event of the group, and a group reads back the highest,
 * so an event that joins a FLID in backoff waits with it instead of resetting its count.
 */
export interface SchdGroup {
  /** The FLID (the record key). */
  readonly flid: string;
  /** The event with the highest `stateVersion` (ties: the highest `eventId`): what is sent. */
  readonly newest: OutboxEvent;
  /** Every event the record stands for, `newest` included, ascending by `eventId`. */
  readonly represented: readonly OutboxEvent[];
  /** The most attempts any of them has spent. */
  readonly attempts: number;
  /** The latest `nextAttemptAt` among them, or null when none is backing off. */
  readonly nextAttemptAt: number | null;
}

/**
 * Merges schd events per FLID, keeping the newest `stateVersion`. Groups come in the order of
 * their oldest event; events are read in any order. Pure.
 */
export function mergeSchd(events: readonly OutboxEvent[]): SchdGroup[] {
  const byFlid = new Map<string, OutboxEvent[]>();
  for (const e of [...events].sort((a, b) => a.eventId - b.eventId)) {
    const list = byFlid.get(e.partitionKey);
    if (list) list.push(e);
    else byFlid.set(e.partitionKey, [e]);
  }
  return [...byFlid].map(([flid, represented]) => {
    let newest = represented[0]!;
    let attempts = 0;
    let nextAttemptAt: number | null = null;
    for (const e of represented) {
      if (e.stateVersion > newest.stateVersion || (e.stateVersion === newest.stateVersion && e.eventId > newest.eventId)) newest = e;
      attempts = Math.max(attempts, e.attempts);
      if (e.nextAttemptAt !== null) nextAttemptAt = Math.max(nextAttemptAt ?? e.nextAttemptAt, e.nextAttemptAt);
    }
    return { flid, newest, represented, attempts, nextAttemptAt };
  });
}
