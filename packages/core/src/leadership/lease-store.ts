/** A lease granted by a {@link LeaseStore}: its fencing epoch and when it ends by the store's clock. */
export interface LeaseGrant {
  /** The fence of this leadership: higher than every epoch granted before. */
  readonly epoch: number;
  /** The end of the lease, epoch milliseconds by the store's clock (for logs: holders never compare it with their own clock). */
  readonly until: number;
}

/** Why a renewal was refused. */
export interface LeaseRefusal {
  readonly refused: string;
}

/**
 * The one pipeline lease of a deployment, kept where the pipeline's state is (issue 24).
 *
 * Every implementation guarantees:
 * - Time is the store's one clock, read when the request executes; never the caller's.
 * - `tryAcquire` grants the lease when no lease runs (never granted, released, or lapsed: its end
 *   is before the store's now) or when `holder` holds it already. Every grant bumps the fencing
 *   epoch by one, atomically with the change of holder, and in the same order as the pipeline's
 *   transactions (PostgreSQL: under the pipeline lock): a pipeline transaction fenced with an older
 *   epoch commits before the grant or is refused FENCED after it. Otherwise it answers undefined.
 *   So a holder that lost the answer (`COMMIT_UNKNOWN`: the grant may have happened) asks again to
 *   find out: it is granted (again, with the next epoch) when its lost grant happened.
 * - `renew` extends the lease to now + `ttlMs` only while `holder` holds it with `epoch` (even
 *   lapsed, if no one took it since: the epoch has not moved, so no one else led); otherwise it
 *   answers a refusal and changes nothing. It never bumps the epoch.
 * - `release` ends the lease at once when `holder` holds it with `epoch`; otherwise it does nothing.
 * - No operation leaves an open transaction or lock behind it: a holder that freezes between two
 *   calls cannot delay another holder's `tryAcquire` past the end of its lease.
 */
export interface LeaseStore {
  /** Takes the lease for `ttlMs` when it is free or lapsed, with a new epoch; undefined when another holder's lease runs. */
  tryAcquire(holder: string, ttlMs: number): Promise<LeaseGrant | undefined>;
  /** Extends `holder`'s lease of `epoch` to now + `ttlMs`; the new end, or a refusal when the epoch or holder moved. */
  renew(holder: string, epoch: number, ttlMs: number): Promise<number | LeaseRefusal>;
  /** Ends `holder`'s lease of `epoch` now (a clean stop): a standby takes over at its next poll. */
  release(holder: string, epoch: number): Promise<void>;
}
