import { isTerminal, type ProcStatus } from "../model/proc-record.js";
import type { Clock } from "../runtime/clock.js";
import type { Logger } from "../runtime/logger.js";
import type { Mailbox } from "../ports/mailbox.js";
import type { PipelineStore } from "../processing/pipeline-store.js";
import type { MaintenanceStore, ReconcileEntry } from "./maintenance-store.js";

export interface ReconcilerOptions {
  /** How many ids below the intake horizon one pass looks at. */
  readonly windowSize: number;
  /** Ids per step (one mailbox scan and at most two store reads and one write). */
  readonly pageSize: number;
  /**
   * Report mailbox rows marked processed without a terminal record. Turn off when the mailbox
   * filters rows by STATUS: the port reports a filtered row as "not pending" too.
   */
  readonly checkProcessed: boolean;
  /** Find terminal records whose backfill never happened and register their todo again. */
  readonly checkBackfill: boolean;
}

export const DEFAULT_RECONCILER_OPTIONS: ReconcilerOptions = {
  windowSize: 10_000,
  pageSize: 1_000,
  checkProcessed: true,
  checkBackfill: true,
};

/** A mailbox row marked processed whose record is not terminal: none at all, or still unfinished. */
export interface ProcessedWithoutTerminal {
  readonly msgId: number;
  readonly state: ProcStatus | "missing";
}

/** What one step found. */
export interface ReconcilePage {
  /** The ids looked at: `from < msgId <= through`. */
  readonly from: number;
  readonly through: number;
  readonly processedWithoutTerminal: readonly ProcessedWithoutTerminal[];
  /** Terminal records with no todo whose mailbox row is still not processed. */
  readonly backfillMissing: readonly number[];
  /** Of those, the ones whose todo this step registered (the rest got one meanwhile). */
  readonly reregistered: readonly number[];
  /** More pages remain in this pass. */
  readonly more: boolean;
}

/** The totals of one whole pass over the window: what the metric shows. */
export interface ReconcileCounts {
  readonly from: number;
  readonly through: number;
  readonly processedWithoutTerminal: number;
  readonly backfillMissing: number;
  readonly reregistered: number;
  readonly finishedAt: number;
}

interface Pass {
  readonly from: number;
  readonly through: number;
  cursor: number;
  processedWithoutTerminal: number;
  backfillMissing: number;
  reregistered: number;
}

const LOGGED_IDS = 20;

/**
 * Compares the mailbox with our processing state over the newest `windowSize` ids at or below the
 * intake horizon, one page per `step` (SPEC §5):
 * 1. a mailbox row marked processed (`DATE_PROCESSED` set) without a terminal record — nobody but
 *    the pump's backfill should set it — is reported (error log, counts);
 * 2. a terminal record with no backfill todo whose mailbox row is still not processed (the todo was
 *    lost or the write-back undone) is reported and its todo registered again (idempotent; the
 *    backfill sweep then writes it).
 *
 * No false alarm from a race with the pump: the pump commits the terminal state (with its todo)
 * before it writes the mailbox, and deletes the todo only after the mailbox write. So check 2 reads
 * the store *before* scanning the mailbox (a record with no todo then is already written back), and
 * check 1 reads it *after* the scan (a row processed then has its terminal record committed).
 */
export class Reconciler {
  readonly #options: ReconcilerOptions;
  #pass: Pass | undefined;
  #lastPass: ReconcileCounts | undefined;

  constructor(
    private readonly deps: {
      readonly store: MaintenanceStore;
      readonly pipeline: PipelineStore;
      readonly mailbox: Mailbox;
      readonly clock: Clock;
      readonly logger: Logger;
      readonly fence?: number;
    },
    options: Partial<ReconcilerOptions> = {},
  ) {
    this.#options = { ...DEFAULT_RECONCILER_OPTIONS, ...options };
    for (const k of ["windowSize", "pageSize"] as const) {
      const v = this.#options[k];
      if (!Number.isInteger(v) || v < 1) throw new RangeError(`${k} must be a positive integer, got ${v}`);
    }
  }

  /** The totals of the last finished pass; undefined before the first one ends. */
  get lastPass(): ReconcileCounts | undefined {
    return this.#lastPass;
  }

  /** One page of the current pass (a pass starts at the current horizon when none is open). */
  async step(signal?: AbortSignal): Promise<ReconcilePage> {
    const { store, pipeline, mailbox, clock, logger, fence } = this.deps;
    const o = this.#options;
    if (this.#pass === undefined) {
      const horizon = (await pipeline.intakeState())?.horizon ?? 0;
      const from = Math.max(0, horizon - o.windowSize);
      this.#pass = { from, through: horizon, cursor: from, processedWithoutTerminal: 0, backfillMissing: 0, reregistered: 0 };
    }
    const pass = this.#pass;
    const a = pass.cursor;
    const b = Math.min(a + o.pageSize, pass.through);
    let page: ReconcilePage = { from: a, through: b, processedWithoutTerminal: [], backfillMissing: [], reregistered: [], more: false };
    if (a < b) {
      const before = o.checkBackfill ? byId(await store.reconcileRange(a, b)) : new Map<number, ReconcileEntry>();
      // Ids in (a, b] number at most pageSize, so one scan of pageSize rows returns all of them.
      const rows = (await mailbox.scan(a, o.pageSize, signal)).filter((r) => r.msgId <= b);
      const after = o.checkProcessed ? byId(await store.reconcileRange(a, b)) : new Map<number, ReconcileEntry>();
      const processedWithoutTerminal: ProcessedWithoutTerminal[] = [];
      const backfillMissing: number[] = [];
      for (const row of rows) {
        if (!row.pending && o.checkProcessed) {
          const e = after.get(row.msgId);
          if (e === undefined || !isTerminal(e.status)) processedWithoutTerminal.push({ msgId: row.msgId, state: e?.status ?? "missing" });
        }
        if (row.pending && o.checkBackfill) {
          const e = before.get(row.msgId);
          if (e !== undefined && isTerminal(e.status) && !e.backfillPending) backfillMissing.push(row.msgId);
        }
      }
      const reregistered =
        backfillMissing.length === 0 ? [] : await store.registerMissingBackfill(backfillMissing, clock.now(), fence === undefined ? {} : { fence });
      page = { from: a, through: b, processedWithoutTerminal, backfillMissing, reregistered, more: b < pass.through };
      if (processedWithoutTerminal.length > 0) {
        logger.error("reconciler: mailbox rows marked processed without a terminal PROC_STATE row", {
          count: processedWithoutTerminal.length,
          rows: processedWithoutTerminal.slice(0, LOGGED_IDS),
        });
      }
      if (backfillMissing.length > 0) {
        logger.error("reconciler: terminal rows whose mailbox backfill never happened; backfill todo registered again", {
          count: backfillMissing.length,
          msgIds: backfillMissing.slice(0, LOGGED_IDS),
          reregistered: reregistered.length,
        });
      }
      pass.cursor = b;
      pass.processedWithoutTerminal += processedWithoutTerminal.length;
      pass.backfillMissing += backfillMissing.length;
      pass.reregistered += reregistered.length;
    }
    if (!page.more) this.#finish(pass);
    return page;
  }

  #finish(pass: Pass): void {
    this.#pass = undefined;
    this.#lastPass = {
      from: pass.from,
      through: pass.through,
      processedWithoutTerminal: pass.processedWithoutTerminal,
      backfillMissing: pass.backfillMissing,
      reregistered: pass.reregistered,
      finishedAt: this.deps.clock.now(),
    };
    const anomalies = pass.processedWithoutTerminal + pass.backfillMissing;
    (anomalies > 0 ? this.deps.logger.error : this.deps.logger.debug).call(this.deps.logger, "reconciler pass", { ...this.#lastPass });
  }
}

const byId = (entries: readonly ReconcileEntry[]): Map<number, ReconcileEntry> => new Map(entries.map((e) => [e.msgId, e]));
