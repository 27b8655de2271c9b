import type { Clock } from "../runtime/clock.js";
import { nextRunAt, parseTimeOfDay } from "./daily-schedule.js";

/** When a job runs: daily at an airport-local time, or every so often. */
export type JobSchedule =
  | { readonly kind: "daily"; readonly at: string; readonly utcOffsetMinutes: number }
  | { readonly kind: "every"; readonly everyMs: number; readonly initialDelayMs?: number };

/** One bounded batch of a job; `more` asks for another batch in the same run. */
export type JobBatch = (signal?: AbortSignal) => Promise<{ readonly more: boolean }>;

export interface ScheduledJobOptions {
  /** The pause between two batches of one run, so a long run leaves room for the pump. */
  readonly batchPauseMs: number;
  /** A run ends after this many batches even if more is due (the next run goes on). */
  readonly maxBatchesPerRun: number;
}

export const DEFAULT_SCHEDULED_JOB_OPTIONS: ScheduledJobOptions = { batchPauseMs: 200, maxBatchesPerRun: 10_000 };

/**
 * Drives a batched job on its schedule for a runner loop: `step` either runs one batch or does
 * nothing, and returns how long to wait before it is called again — it never sleeps itself.
 *
 * - `daily`: the first run is the next `at` (airport time) after the first step — a runner started
 *   after 03:30 runs tomorrow; retirement is cutoff-based, so a skipped day is caught up then.
 * - `every`: the first run is `initialDelayMs` (default 0) after the first step; the next one
 *   `everyMs` after a run ends.
 * - A run is a sequence of batches, `batchPauseMs` apart, until a batch says no `more` or
 *   `maxBatchesPerRun` is reached. A batch that throws leaves the run due: the loop's error
 *   backoff calls `step` again later and the run goes on.
 */
export class ScheduledJob {
  readonly #options: ScheduledJobOptions;
  #nextRunAt: number | undefined;
  #batches = 0;

  constructor(
    readonly schedule: JobSchedule,
    private readonly batch: JobBatch,
    private readonly clock: Clock,
    options: Partial<ScheduledJobOptions> = {},
  ) {
    this.#options = { ...DEFAULT_SCHEDULED_JOB_OPTIONS, ...options };
    if (schedule.kind === "daily") {
      parseTimeOfDay(schedule.at);
      nextRunAt(0, schedule.at, schedule.utcOffsetMinutes);
    } else if (!(schedule.everyMs > 0)) {
      throw new RangeError(`everyMs must be positive, got ${schedule.everyMs}`);
    }
  }

  /** When the next run starts; undefined before the first step. */
  get nextRunAt(): number | undefined {
    return this.#nextRunAt;
  }

  /** Runs one batch if a run is due; returns the ms until the next call. */
  async step(signal?: AbortSignal): Promise<number> {
    const now = this.clock.now();
    this.#nextRunAt ??= this.schedule.kind === "daily" ? this.#following(now) : now + (this.schedule.initialDelayMs ?? 0);
    if (now < this.#nextRunAt) return this.#nextRunAt - now;
    const { more } = await this.batch(signal);
    this.#batches += 1;
    if (more && this.#batches < this.#options.maxBatchesPerRun) return this.#options.batchPauseMs;
    this.#batches = 0;
    const end = this.clock.now();
    this.#nextRunAt = this.#following(end);
    return Math.max(0, this.#nextRunAt - end);
  }

  #following(now: number): number {
    const s = this.schedule;
    return s.kind === "daily" ? nextRunAt(now, s.at, s.utcOffsetMinutes) : now + s.everyMs;
  }
}
