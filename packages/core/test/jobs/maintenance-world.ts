import { BackfillSweeper, decodeMessage, defaultProcessors, InboxPoller, Pump, silentLogger, type IdentityOptions, type Logger, type PipelineStore } from "@msgx/core";
import { InMemoryMailbox, InMemoryOutboxStore, ManualClock, messageXml } from "@msgx/core/testing";
import { HistorySweeper, type HistorySweepOptions } from "../../src/jobs/history-sweeper.js";
import { InMemoryPipelineStore } from "../../src/processing/in-memory-pipeline-store.js";
import { InMemoryMaintenanceStore } from "../../src/jobs/in-memory-maintenance-store.js";
import type { MaintenanceStore } from "../../src/jobs/maintenance-store.js";
import { ProcStateArchiver, type ProcStateArchiveOptions } from "../../src/jobs/proc-state-archiver.js";
import { Reconciler, type ReconcilerOptions } from "../../src/jobs/reconciler.js";

const pad = (n: number, w = 2) => String(n).padStart(w, "0");
/** UTC+8, as the processors' default. */
const local = (instant: number) => new Date(instant + 480 * 60_000);

/** META DTTM (`yyyyMMddHHmmss`, airport time) of an instant. */
export const dttmOf = (instant: number): string => {
  const d = local(instant);
  return `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}`;
};

/** SODT wire time (`ddMMMyyHHmm`) at 08:00 on the given March 2026 day: operation day `202603dd`. */
export const sodtMarch = (day: number): string => `${pad(day)}MAR260800`;

const fltr = (flid: string, sodt: string) =>
  `<FLTR><FLID>${flid}</FLID><ALCD>CZ</ALCD><FLNO>CZ${flid.slice(-4)}</FLNO><MVIN>D</MVIN><SODT>${sodt}</SODT><FLTY>W</FLTY><FLIN>D</FLIN><ACFT>321</ACFT></FLTR>`;

/** SIS messages with a chosen SEQN (so a test can re-send an identity) stamped at `at`. */
export const sis = {
  adft: (seqn: number, flid: string, sodt: string, at: number) =>
    messageXml({ sndr: "AODB", seqn, dttm: dttmOf(at), type: "SCHD", styp: "ADFT" }, `<SCHD><RECS>1</RECS>${fltr(flid, sodt)}</SCHD>`),
  estt: (seqn: number, flid: string, at: number) =>
    messageXml({ sndr: "AODB", seqn, dttm: dttmOf(at), type: "FLOP", styp: "ESTT" }, `<FLOP><FLID>${flid}</FLID><ESTT>05MAR261452</ESTT></FLOP>`),
  fdel: (seqn: number, flid: string, at: number) =>
    messageXml({ sndr: "AODB", seqn, dttm: dttmOf(at), type: "FLOP", styp: "FDEL" }, `<FLOP><FLID>${flid}</FLID><FDEL/></FLOP>`),
  ldm: (seqn: number, at: number) => messageXml({ sndr: "AODB", seqn, dttm: dttmOf(at), type: "LDM", styp: "NONE" }, `<LDM><TEXT>load</TEXT></LDM>`),
};

export interface WorldOptions {
  readonly start?: number;
  readonly history?: Partial<HistorySweepOptions>;
  readonly archive?: Partial<ProcStateArchiveOptions>;
  readonly reconciler?: Partial<ReconcilerOptions>;
  readonly logger?: Logger;
  /** The pump's identity options (the dedupe window among them); the core's defaults when absent. */
  readonly identity?: IdentityOptions;
  /**
   * Awaited by the pump's transactions right after loading flights, and by the history sweep's
   * right after loading retirable ones: yields that let the other side run if nothing serialized
   * them (the property uses it to explore interleavings).
   */
  readonly jitter?: () => Promise<void>;
}

/**
 * The whole exchange on fakes plus the maintenance jobs: mailbox → poller → pump (real flight
 * processors) → backfill, and the history sweep, the archive and the reconciler over the same
 * in-memory state.
 */
export class MaintenanceWorld {
  readonly clock: ManualClock;
  readonly mailbox: InMemoryMailbox;
  readonly pipeline: InMemoryPipelineStore;
  readonly store: InMemoryMaintenanceStore;
  readonly outbox: InMemoryOutboxStore;
  readonly poller: InboxPoller;
  readonly pump: Pump;
  readonly backfill: BackfillSweeper;
  readonly history: HistorySweeper;
  readonly archiver: ProcStateArchiver;
  readonly reconciler: Reconciler;

  constructor(options: WorldOptions = {}) {
    this.clock = new ManualClock(options.start);
    this.mailbox = new InMemoryMailbox(this.clock);
    this.pipeline = new InMemoryPipelineStore(this.clock);
    this.store = new InMemoryMaintenanceStore(this.pipeline, this.clock);
    this.outbox = new InMemoryOutboxStore(this.pipeline);
    const logger = options.logger ?? silentLogger;
    const jitter = options.jitter;
    const deps = { mailbox: this.mailbox, store: jitter ? jitteryPipeline(this.pipeline, jitter) : this.pipeline, clock: this.clock, logger };
    this.poller = new InboxPoller(deps, { batchSize: 50, gapGraceMs: 1_000 });
    this.pump = new Pump(
      { ...deps, decode: (raw) => decodeMessage(raw), processors: defaultProcessors(), horizon: () => this.poller.horizon },
      { maxRun: 20, ...(options.identity === undefined ? {} : { identity: options.identity }) },
    );
    this.backfill = new BackfillSweeper(deps);
    const jobDeps = { store: this.store, pipeline: this.pipeline, clock: this.clock, logger };
    this.history = new HistorySweeper({ ...jobDeps, store: jitter ? jitteryMaintenance(this.store, jitter) : this.store }, options.history);
    this.archiver = new ProcStateArchiver(jobDeps, options.archive);
    this.reconciler = new Reconciler({ ...jobDeps, mailbox: this.mailbox }, options.reconciler);
  }

  /** Appends a message to the mailbox (committed); returns its id. */
  send(raw: string): number {
    return this.mailbox.insert(raw);
  }

  /** Polls and pumps until the pump is idle. */
  async settle(): Promise<void> {
    while ((await this.poller.step()).full);
    for (let i = 0; i < 1_000; i++) {
      const step = await this.pump.step();
      if (step.did === "processed") continue;
      if (step.did === "wait") {
        this.clock.set(Math.max(this.clock.now(), step.until));
        continue;
      }
      return;
    }
    throw new Error("pump never idle");
  }

  /** Runs `step` until it reports no more. */
  static async drain(step: () => Promise<{ readonly more: boolean }>): Promise<number> {
    for (let n = 1; n <= 10_000; n++) if (!(await step()).more) return n;
    throw new Error("job never finished");
  }
}

/** `target` with one member replaced; every other member is the target's own, bound to it. */
function replacing<T extends object>(target: T, key: keyof T, value: unknown): T {
  return new Proxy(target, {
    get: (t, k) => {
      if (k === key) return value;
      const v: unknown = Reflect.get(t, k);
      return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(t) : v;
    },
  });
}

/** The pipeline store with `jitter` after every `loadFlights` inside a transaction. */
function jitteryPipeline(s: PipelineStore, jitter: () => Promise<void>): PipelineStore {
  const transaction: PipelineStore["transaction"] = (fn, o) =>
    s.transaction(
      (tx) =>
        fn(
          replacing(tx, "loadFlights", async (flids: readonly string[]) => {
            const loaded = await tx.loadFlights(flids);
            await jitter();
            return loaded;
          }),
        ),
      o,
    );
  return replacing(s, "transaction", transaction);
}

/** The maintenance store with `jitter` after every `retirableFlights`. */
function jitteryMaintenance(s: MaintenanceStore, jitter: () => Promise<void>): MaintenanceStore {
  const transaction: MaintenanceStore["transaction"] = (fn, o) =>
    s.transaction(
      (tx) =>
        fn(
          replacing(tx, "retirableFlights", async (cutoffDay: string, limit: number) => {
            const flights = await tx.retirableFlights(cutoffDay, limit);
            await jitter();
            return flights;
          }),
        ),
      o,
    );
  return replacing(s, "transaction", transaction);
}
