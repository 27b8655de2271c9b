import { DEFAULT_IDENTITY_OPTIONS, type IdentityOptions } from "../model/identity.js";
import { DEFAULT_MAX_RECORD_BYTES } from "../outbox/record-size.js";
import { DEFAULT_BREAKER_POLICY, type BreakerPolicy } from "../runtime/outage-breaker.js";
import { DEFAULT_RETRY_POLICY, DEFAULT_UNSUPPORTED_POLICY, type RetryPolicy, type UnsupportedPolicy } from "../runtime/retry-policy.js";
import { DEFAULT_LEADER_MEMORY_OPTIONS, type LeaderMemoryOptions } from "./leader-memory.js";
import { DEFAULT_BACKFILL_BEHIND_OPTIONS, type BackfillBehindOptions } from "./backfill-behind.js";

/** How a `Pump` runs: its retry and breaker policies, the size of its runs, and which fast paths it takes. */
export interface PumpOptions {
  readonly policy: RetryPolicy;
  /** The short budget (or `skip` mode) of UNSUPPORTED messages (WIRE.md "Unknown and unwanted types"). */
  readonly unsupported: UnsupportedPolicy;
  readonly identity: IdentityOptions;
  readonly breaker: BreakerPolicy;
  /**
   * The most messages committed in one transaction (group commit, SPEC §5). 1 is the
   * one-message-per-transaction design the benchmarks compare against.
   */
  readonly maxRun: number;
  /** The leadership epoch every transaction is fenced with, when leadership is in use. */
  readonly fence?: number;
  /**
   * The broker's record limit in bytes, checked inside the decision (`RunContext.maxRecordBytes`):
   * a message with an event over it ends DEAD(PROTOCOL) before anything of it is written. 0: unchecked.
   */
  readonly maxRecordBytes: number;
  /** The bounds of the leader's memory (`LeaderMemory`). */
  readonly memory: LeaderMemoryOptions;
  /**
   * Decide runs that read no open requests and no reference rows from the leader's memory and
   * commit them with `commitRun` (issue 32). Off: every run commits through `transaction`, as
   * the tests that compare the two paths need.
   */
  readonly decideFromMemory: boolean;
  /**
   * The intake that enqueues runs in this process and reports every enqueue (`Pump.enqueue`):
   * runs are taken from memory and the run query is asked only when memory is unknown, or holds
   * a prefix shorter than a step needs (`KnownUnfinished`). False: every step asks the store.
   */
  readonly intakeInProcess: boolean;
  /** With `intakeInProcess`: the longest an idle pump trusts that nothing is unfinished before it asks the store again. */
  readonly resyncMs: number;
  /**
   * Pipelined steps (issue 32, item 4; needs `intakeInProcess` and `decideFromMemory`): while a run's
   * `commitRun` is on its way, the run behind it is read, decoded and decided from the state the
   * first will leave (`Speculation`); the next step commits that decision if nothing it was made
   * from changed, and otherwise decides again.
   */
  readonly pipelined: boolean;
  /** The oldest a speculated decision may be when its step commits it; an older one is made again at the step's time. */
  readonly speculationMaxAgeMs: number;
  /**
   * When committed runs are written back to the mailbox (`BackfillBehind`): by default after every
   * run; the runner batches them (`pipeline.backfillDelayMs`). A pending batch makes
   * `Pump.backfillDueAt` say when the driver must call `step` again.
   */
  readonly backfill: BackfillBehindOptions;
}

export const DEFAULT_PUMP_OPTIONS: PumpOptions = {
  policy: DEFAULT_RETRY_POLICY,
  unsupported: DEFAULT_UNSUPPORTED_POLICY,
  identity: DEFAULT_IDENTITY_OPTIONS,
  breaker: DEFAULT_BREAKER_POLICY,
  maxRun: 200,
  maxRecordBytes: DEFAULT_MAX_RECORD_BYTES,
  memory: DEFAULT_LEADER_MEMORY_OPTIONS,
  decideFromMemory: true,
  intakeInProcess: false,
  resyncMs: 1_000,
  pipelined: true,
  speculationMaxAgeMs: 100,
  backfill: DEFAULT_BACKFILL_BEHIND_OPTIONS,
};
