import {
  decideLease,
  evolveLease,
  initialLease,
  LeasePhase,
  leaseTiming,
  mayLead,
  isOutage,
  systemClock,
  type Clock,
  type LeaseCommand,
  type LeaseState,
  type LeaseStore,
  type LeaseTiming,
  type TimerHandle,
  type Timers,
} from "@msgx/core";
import type { Kysely } from "kysely";
import { hostname } from "node:os";
import { DEFAULT_LOCK_NAMESPACE, lockKeys } from "./lock-keys.js";
import { pgCall } from "./pg-error-map.js";
import { bumpEpoch } from "./queries/pipeline-epoch.js";
import type { MsgxDatabase } from "./rows/tables.js";

/** The default lease: a frozen or cut-off leader is replaced within about this long. */
export const DEFAULT_LEASE_TTL_MS = 10_000;

export interface PgLeadershipOptions {
  /** Where the lease is kept (`PgStores.lease`). */
  readonly store: LeaseStore;
  /** Written to `leadership.holder`. Default `<hostname>:<pid>`. */
  readonly holder?: string;
  /** The lease the store grants per acquire or renewal. Default 10 s; renewed every third of it. */
  readonly ttlMs?: number;
  /** This process's clock: its leading window is counted on `monotonic()`. Default the system clock. */
  readonly clock?: Clock;
  /** The timers of the renewals, the window watchdog and the standby's polls. Default: the host's (the simulation gives virtual ones). */
  readonly timers?: Timers;
}

/** Why leadership ended. */
export type LossListener = (reason: string) => void;

const hostTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout> | undefined),
  setInterval: (fn, ms) => setInterval(fn, ms),
  clearInterval: (h) => clearInterval(h as ReturnType<typeof setInterval> | undefined),
};

/**
 * Pipeline leadership as a lease (SPEC §2.8, issue 24): drives the core's lease machine
 * (`decideLease`/`evolveLease`) with the store's answers and its own timers.
 *
 * - `acquire()` asks the store once; a grant carries a new epoch, the fence every pipeline
 *   transaction of this leader carries. Undefined while another process's lease runs.
 * - `acquireWhenFree()` is the standby: it polls `acquire()` until it leads or is aborted. An
 *   outage and an unknown answer (`COMMIT_UNKNOWN`: the grant may have happened) are polled
 *   through alike: the next `tryAcquire` of the same holder finds out, since the store grants the
 *   lease again to the holder that has it (with a new epoch, the one this process then leads with).
 * - A leader renews every `ttlMs / 3` and checks its window often; `mayLead()` says whether a
 *   pipeline step may start now. `watch()` reports the loss once: a refused renewal (another
 *   process leads with a higher epoch) or a window that ran out (this process was frozen, or the
 *   database did not answer in time). Every later commit of this leader is refused as FENCED.
 */
export class PgLeadership {
  readonly #store: LeaseStore;
  readonly #holder: string;
  readonly #timing: LeaseTiming;
  readonly #clock: Clock;
  readonly #timers: Timers;
  readonly #listeners = new Set<LossListener>();
  #state: LeaseState = initialLease;
  #renewal: TimerHandle | undefined;
  #watchdog: TimerHandle | undefined;

  constructor(options: PgLeadershipOptions) {
    this.#store = options.store;
    this.#holder = options.holder ?? `${hostname()}:${process.pid}`;
    this.#timing = leaseTiming(options.ttlMs ?? DEFAULT_LEASE_TTL_MS);
    this.#clock = options.clock ?? systemClock;
    this.#timers = options.timers ?? hostTimers;
  }

  /** The epoch of the current leadership, or undefined when not leading. */
  get epoch(): number | undefined {
    return this.#state.phase === LeasePhase.LEADING ? this.#state.epoch : undefined;
  }

  get isLeader(): boolean {
    return this.epoch !== undefined;
  }

  /** The lease's timing (ttl, renewal period, safety margin). */
  get timing(): LeaseTiming {
    return this.#timing;
  }

  /** Whether a pipeline step may start now: leading, inside the window of the last renewal. */
  mayLead(): boolean {
    this.#apply({ type: "tick" });
    return mayLead(this.#state, this.#clock.monotonic());
  }

  /** Tries once. Returns the new epoch when this process now leads, undefined when another does. */
  async acquire(): Promise<number | undefined> {
    if (this.#state.phase !== LeasePhase.FOLLOWING) return this.epoch;
    const sentAt = this.#clock.monotonic();
    const grant = await this.#store.tryAcquire(this.#holder, this.#timing.ttlMs);
    if (grant === undefined) return undefined;
    this.#apply({ type: "acquired", epoch: grant.epoch, sentAt });
    const epoch = this.epoch;
    if (epoch === undefined) return undefined;
    this.#scheduleRenewal(sentAt);
    this.#watchdog = this.#timers.setInterval(() => this.#apply({ type: "tick" }), Math.min(250, this.#timing.renewEveryMs));
    this.#watchdog.unref?.();
    return epoch;
  }

  /**
   * Standby: polls `acquire()` every `pollMs` until this process leads. Outages and unknown
   * answers are polled through (a lost grant is granted again to this holder); never throws but
   * for an abort or a fault of the store that no retry mends.
   */
  async acquireWhenFree(options: { readonly pollMs?: number; readonly signal?: AbortSignal } = {}): Promise<number> {
    const pollMs = options.pollMs ?? 1_000;
    for (;;) {
      options.signal?.throwIfAborted();
      try {
        const epoch = await this.acquire();
        if (epoch !== undefined) return epoch;
      } catch (e) {
        if (!isOutage(e)) throw e;
      }
      await sleep(this.#timers, pollMs, options.signal);
    }
  }

  /**
   * Whether this process still leads with the epoch it was granted, asked of the store now (a
   * renewal, which also extends the lease): a yes means no newer epoch had been granted when the
   * call reached the store. The runner gives it to the delivery port as `ProducerFencing.confirm`.
   * Throws what the store throws (the answer is then unknown).
   */
  async confirm(): Promise<boolean> {
    const epoch = this.epoch;
    if (epoch === undefined) return false;
    const sentAt = this.#clock.monotonic();
    const answer = await this.#store.renew(this.#holder, epoch, this.#timing.ttlMs);
    this.#apply(typeof answer === "number" ? { type: "renewed", sentAt } : { type: "renew-refused", why: answer.refused });
    return typeof answer === "number" && this.epoch === epoch;
  }

  /** Calls `onLost` once when the leadership is lost. Returns an unsubscribe function. */
  watch(onLost: LossListener): () => void {
    const state = this.#state;
    if (state.phase === LeasePhase.LOST) {
      queueMicrotask(() => onLost(state.why));
      return () => undefined;
    }
    this.#listeners.add(onLost);
    return () => this.#listeners.delete(onLost);
  }

  /** Ends the lease now (a clean shutdown): a standby takes over at its next poll. */
  async release(): Promise<void> {
    this.#stopTimers();
    this.#listeners.clear();
    const epoch = this.epoch;
    this.#state = initialLease;
    if (epoch !== undefined) await this.#store.release(this.#holder, epoch).catch(() => undefined);
  }

  /** The next renewal `renewEveryMs` after the last one was sent; one at a time. */
  #scheduleRenewal(lastSentAt: number): void {
    const wait = Math.max(0, lastSentAt + this.#timing.renewEveryMs - this.#clock.monotonic());
    this.#renewal = this.#timers.setTimeout(() => void this.#renew(), wait);
    this.#renewal.unref?.();
  }

  async #renew(): Promise<void> {
    const epoch = this.epoch;
    if (epoch === undefined) return;
    const sentAt = this.#clock.monotonic();
    try {
      const answer = await this.#store.renew(this.#holder, epoch, this.#timing.ttlMs);
      this.#apply(typeof answer === "number" ? { type: "renewed", sentAt } : { type: "renew-refused", why: answer.refused });
    } catch {
      // An unanswered renewal is no loss yet: the window decides (the watchdog's tick).
      this.#apply({ type: "tick" });
    }
    if (this.#state.phase === LeasePhase.LEADING && this.#state.epoch === epoch) this.#scheduleRenewal(sentAt);
  }

  /** The one place the state changes. */
  #apply(command: LeaseCommand): void {
    const event = decideLease(this.#state, command, this.#clock.monotonic(), this.#timing);
    if (event === undefined) return;
    this.#state = evolveLease(this.#state, event);
    const state = this.#state;
    if (state.phase !== LeasePhase.LOST) return;
    this.#stopTimers();
    for (const listener of [...this.#listeners]) listener(state.why);
    this.#listeners.clear();
  }

  #stopTimers(): void {
    if (this.#renewal !== undefined) this.#timers.clearTimeout(this.#renewal);
    if (this.#watchdog !== undefined) this.#timers.clearInterval(this.#watchdog);
    this.#renewal = undefined;
    this.#watchdog = undefined;
  }
}

function sleep(timers: Timers, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = timers.setTimeout(done, ms);
    function done() {
      signal?.removeEventListener("abort", abort);
      resolve();
    }
    function abort() {
      timers.clearTimeout(timer);
      reject(signal?.reason);
    }
    signal?.addEventListener("abort", abort, { once: true });
  });
}

/**
 * Bumps the leadership epoch through any kysely instance (tests, tools, the contract harness). A
 * running leader's fence becomes stale. Real leaders use {@link PgLeadership}.
 */
export async function bumpLeadershipEpoch<DB>(
  db: Kysely<DB>,
  options: { readonly lockNamespace?: string; readonly holder?: string; readonly clock?: Clock } = {},
): Promise<number> {
  const keys = lockKeys(options.lockNamespace ?? DEFAULT_LOCK_NAMESPACE);
  const now = (options.clock ?? systemClock).now();
  return pgCall("bump epoch", () =>
    (db as unknown as Kysely<MsgxDatabase>).transaction().execute((trx) => bumpEpoch(trx, keys, options.holder ?? "manual", now)),
  );
}
