import type { LeaseGrant, LeaseRefusal } from "@msgx/core";
import { InMemoryLeaseStore } from "@msgx/core/fakes";
import type { ManualClock } from "@msgx/core/fakes";

/** One epoch's lease as the store granted it, counted in true (elapsed) time. */
export interface TrueLease {
  readonly holder: string;
  /** True instant (`monotonic()`) the lease runs out: the last grant or renewal plus its ttl. */
  until: number;
  /** How far the store's wall clock was ahead of true time when the epoch was granted. */
  readonly aheadAtGrant: number;
  /** The same at the last grant or renewal. */
  aheadAtRenewal: number;
}

/**
 * The simulation's lease row: the fake's row, timed by the store's wall clock as PostgreSQL times
 * its row by its own `now()`, which a forward step moves; and beside it each epoch's lease in true
 * time, the time the lease keeper's window is counted in (its monotonic clock). The two agree until
 * the store's clock steps: then the row lapses early and a standby may be granted the lease while
 * the old leader's window is still open (fencing, not the lease, keeps that safe).
 */
export class SimLeaseStore extends InMemoryLeaseStore {
  /** Epoch → its lease in true time. */
  readonly leases = new Map<number, TrueLease>();
  readonly #clock: ManualClock;

  constructor(clock: ManualClock) {
    super(clock);
    this.#clock = clock;
  }

  override async tryAcquire(holder: string, ttlMs: number): Promise<LeaseGrant | undefined> {
    const grant = await super.tryAcquire(holder, ttlMs);
    if (grant !== undefined) {
      const ahead = this.#ahead();
      this.leases.set(grant.epoch, { holder, until: this.#clock.monotonic() + ttlMs, aheadAtGrant: ahead, aheadAtRenewal: ahead });
    }
    return grant;
  }

  override async renew(holder: string, epoch: number, ttlMs: number): Promise<number | LeaseRefusal> {
    const answer = await super.renew(holder, epoch, ttlMs);
    const lease = this.leases.get(epoch);
    if (typeof answer === "number" && lease !== undefined) {
      lease.until = this.#clock.monotonic() + ttlMs;
      lease.aheadAtRenewal = this.#ahead();
    }
    return answer;
  }

  /** The store's wall clock minus true time: it grows by every forward step. */
  #ahead(): number {
    return this.#clock.now() - this.#clock.monotonic();
  }
}
