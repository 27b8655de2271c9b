import type { ValueOf } from "../base/states.js";

/** What a runner is doing: running the pipeline (`leader`) or waiting for the leadership (`standby`). */
export const RunnerRole = {
  LEADER: "leader",
  STANDBY: "standby",
} as const;
export type RunnerRole = ValueOf<typeof RunnerRole>;

/** What one heartbeat of a runner states about itself. */
export interface RunnerBeat {
  /** Unique per process (not per host: two runners may share a host). */
  readonly runnerId: string;
  readonly host: string;
  readonly pid: number;
  readonly role: RunnerRole;
  /** The fence of a leader's leadership; null for a standby (and a leader whose store has none). */
  readonly epoch: number | null;
  /** When the process started, epoch milliseconds (the runner's own clock: it is a fact about the process). */
  readonly startedAt: number;
}

/** A runner as the store last heard of it. */
export interface RunnerPresence extends RunnerBeat {
  /** The store's clock at the last heartbeat, epoch milliseconds. */
  readonly seenAt: number;
  /** Not heard of for longer than the `staleAfterMs` of the listing: crashed, cut off, or frozen. */
  readonly stale: boolean;
}

/**
 * The runners of one database announce themselves here, so an operator sees the leader and the
 * standbys from any of them (`GET /admin/runners`).
 *
 * Every implementation guarantees:
 * - Times come from the store's one clock (the database's `now()`), never from the caller: runners
 *   on hosts whose clocks disagree are still compared fairly. `startedAt` is stored as given.
 * - `beat` is an idempotent upsert of the runner's row; the last beat wins whole (role, epoch).
 * - `list` answers from committed rows only; a row is `stale` when its last beat is more than
 *   `staleAfterMs` older than the store's clock now.
 * - `leave` and `prune` delete only the rows they name; deleting what is not there is not an error.
 */
export interface RunnerPresenceStore {
  /** Records that `beat.runnerId` is alive now, as `beat` says. */
  beat(beat: RunnerBeat): Promise<void>;
  /** Forgets a runner (its clean stop). */
  leave(runnerId: string): Promise<void>;
  /** Every known runner: leaders first, then by `startedAt`, then by `runnerId`. */
  list(options: { readonly staleAfterMs: number }): Promise<readonly RunnerPresence[]>;
  /** Deletes the rows not heard of for more than `olderThanMs` (runners that never stopped cleanly); returns how many. */
  prune(olderThanMs: number): Promise<number>;
}

/** The order `list` promises. */
export function compareRunners(a: RunnerBeat, b: RunnerBeat): number {
  const rank = (r: RunnerBeat) => (r.role === RunnerRole.LEADER ? 0 : 1);
  return rank(a) - rank(b) || a.startedAt - b.startedAt || (a.runnerId < b.runnerId ? -1 : a.runnerId > b.runnerId ? 1 : 0);
}
