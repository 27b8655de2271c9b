/**
 * Consumer-side dedupe for downstream services (SPEC §2.4: delivery is at least once; every
 * record carries a stable event id and a state version, and the SDK ships the dedupe).
 *
 * A record is dropped when
 * - its event id was already accepted (`duplicate`: a resend after an unknown outcome), or
 * - its state version is not newer than the newest already accepted for its key (`stale`: a late
 *   copy of an older state, or a second event with the same version).
 *
 * Memory is bounded: both the accepted event ids and the per-key versions are kept in LRU windows
 * of configurable size. A duplicate older than the id window is still caught as stale as long as
 * its key is in the key window; size the key window to the number of live keys (flights).
 *
 * Pure and synchronous: no clock, no I/O. Keep one instance per topic (or per consumer group
 * member and assigned partition set) and feed it records in the order they are consumed.
 */
export interface DedupeInput {
  /** The `msgx-event-id` header. */
  readonly eventId: string | number;
  /** The record key (FLID). */
  readonly key: string;
  /** The `msgx-state-version` header. */
  readonly stateVersion: number;
}

export type DedupeReason = "duplicate" | "stale";

export interface DedupeVerdict {
  readonly accept: boolean;
  readonly reason?: DedupeReason;
}

export interface ConsumerDedupeOptions {
  /** How many accepted event ids to remember (default 100,000). */
  readonly maxEventIds?: number;
  /** How many keys to remember the newest accepted version of (default 100,000). */
  readonly maxKeys?: number;
}

export const DEFAULT_CONSUMER_DEDUPE_OPTIONS: Required<ConsumerDedupeOptions> = {
  maxEventIds: 100_000,
  maxKeys: 100_000,
};

const ACCEPT: DedupeVerdict = { accept: true };
const DUPLICATE: DedupeVerdict = { accept: false, reason: "duplicate" };
const STALE: DedupeVerdict = { accept: false, reason: "stale" };

export class ConsumerDedupe {
  readonly #maxEventIds: number;
  readonly #maxKeys: number;
  // Maps iterate in insertion order: delete + set moves an entry to the young end (LRU).
  readonly #eventIds = new Map<string, true>();
  readonly #versions = new Map<string, number>();

  constructor(options: ConsumerDedupeOptions = {}) {
    const o = { ...DEFAULT_CONSUMER_DEDUPE_OPTIONS, ...options };
    if (!Number.isInteger(o.maxEventIds) || o.maxEventIds < 1) throw new RangeError(`maxEventIds must be a positive integer: ${o.maxEventIds}`);
    if (!Number.isInteger(o.maxKeys) || o.maxKeys < 1) throw new RangeError(`maxKeys must be a positive integer: ${o.maxKeys}`);
    this.#maxEventIds = o.maxEventIds;
    this.#maxKeys = o.maxKeys;
  }

  /**
   * Decides on one record and, when it is accepted, remembers it. Throws a `RangeError` for a
   * state version that is not a finite number (parse and validate the header first).
   */
  check(input: DedupeInput): DedupeVerdict {
    if (!Number.isFinite(input.stateVersion)) throw new RangeError(`state version is not a finite number: ${input.stateVersion}`);
    const id = String(input.eventId);
    if (this.#eventIds.has(id)) {
      touch(this.#eventIds, id, true);
      return DUPLICATE;
    }
    const newest = this.#versions.get(input.key);
    if (newest !== undefined && !(input.stateVersion > newest)) return STALE;
    touch(this.#eventIds, id, true);
    evictOldest(this.#eventIds, this.#maxEventIds);
    touch(this.#versions, input.key, input.stateVersion);
    evictOldest(this.#versions, this.#maxKeys);
    return ACCEPT;
  }

  /** The newest accepted state version of `key`, if it is still in the window. */
  newestVersion(key: string): number | undefined {
    return this.#versions.get(key);
  }

  /** How many event ids and keys are remembered (each at most its window size). */
  get size(): { readonly eventIds: number; readonly keys: number } {
    return { eventIds: this.#eventIds.size, keys: this.#versions.size };
  }
}

function touch<K, V>(map: Map<K, V>, key: K, value: V): void {
  map.delete(key);
  map.set(key, value);
}

function evictOldest<K, V>(map: Map<K, V>, max: number): void {
  while (map.size > max) {
    const oldest = map.keys().next();
    if (oldest.done === true) return;
    map.delete(oldest.value);
  }
}
