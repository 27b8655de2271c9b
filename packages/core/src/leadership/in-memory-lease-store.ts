import type { Clock } from "../runtime/clock.js";
import type { LeaseGrant, LeaseRefusal, LeaseStore } from "./lease-store.js";

/** The lease row of the fake, as the PostgreSQL `leadership` row holds it. */
export interface InMemoryLeaseRow {
  epoch: number;
  holder: string | undefined;
  /** By the fake's clock; `-Infinity` when released or never granted. */
  until: number;
}

/** The in-memory {@link LeaseStore}: one row, timed by the injected clock. */
export class InMemoryLeaseStore implements LeaseStore {
  readonly #clock: Clock;
  /** Exposed so a test can read or age the lease as the real store's row. */
  readonly row: InMemoryLeaseRow = { epoch: 0, holder: undefined, until: Number.NEGATIVE_INFINITY };

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  async tryAcquire(holder: string, ttlMs: number): Promise<LeaseGrant | undefined> {
    const now = this.#clock.now();
    const row = this.row;
    if (row.holder !== holder && row.until >= now) return undefined;
    row.epoch += 1;
    row.holder = holder;
    row.until = now + ttlMs;
    return { epoch: row.epoch, until: row.until };
  }

  async renew(holder: string, epoch: number, ttlMs: number): Promise<number | LeaseRefusal> {
    const row = this.row;
    if (row.holder !== holder || row.epoch !== epoch) {
      return { refused: `the lease is held with epoch ${row.epoch} by ${row.holder ?? "no one"}` };
    }
    row.until = this.#clock.now() + ttlMs;
    return row.until;
  }

  async release(holder: string, epoch: number): Promise<void> {
    if (this.row.holder !== holder || this.row.epoch !== epoch) return;
    this.row.holder = undefined;
    this.row.until = Number.NEGATIVE_INFINITY;
  }
}
