import { errorMessage } from "../errors/msgx-error.js";
import type { Clock } from "../runtime/clock.js";
import type { Logger } from "../runtime/logger.js";
import { noopTracer, SpanName, type TraceSpan, type Tracer } from "../runtime/tracer.js";
import type { Mailbox, MailboxRow } from "../ports/mailbox.js";
import type { PipelineStore } from "../processing/pipeline-store.js";
import { GapTracker, type GapState } from "./gap-tracker.js";
import type { IngressTraces } from "./ingress-traces.js";

export interface InboxPollerOptions {
  /** Rows per scan (seed 000 `claim-batch`). */
  readonly batchSize: number;
  /**
   * How long a missing id may hold the horizon before it is taken as a rolled-back insert; timed
   * on `Clock.monotonic()`, so a wall-clock jump neither shortens nor stretches it.
   */
  readonly gapGraceMs: number;
  /** How many ids behind the horizon the periodic re-scan looks at. */
  readonly rescanWindow: number;
  /** How often the re-scan behind the horizon runs. */
  readonly rescanEveryMs: number;
}

export const DEFAULT_INBOX_POLLER_OPTIONS: InboxPollerOptions = {
  batchSize: 50,
  gapGraceMs: 10_000,
  rescanWindow: 1_000,
  rescanEveryMs: 30_000,
};

/** Gaps confirmed (and so possibly given up) per step; the rest wait for the next step. */
const MAX_GAPS_PER_STEP = 16;

/** What the intake writes and reads of the pipeline's state. */
export type IntakeStore = Pick<PipelineStore, "enqueue" | "intakeState">;

export interface PollResult {
  /** Ids newly enqueued by this step. */
  readonly enqueued: readonly number[];
  /** The fast scan came back full: poll again at once, the mailbox has more. */
  readonly full: boolean;
  readonly horizon: number;
  /** The horizon is above where the previous step left it (the first step: above 0). */
  readonly advanced: boolean;
}

/**
 * Moves mailbox rows into our processing state (seed 000 §3.1) and publishes the safe horizon.
 * One `step` is one poll; the runner's loop calls it every interval, and at once after a full
 * batch. Nothing here reads the message text.
 */
export class InboxPoller {
  readonly #mailbox: Mailbox;
  readonly #store: IntakeStore;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #tracer: Tracer;
  readonly #ingressTraces: IngressTraces | undefined;
  readonly #options: InboxPollerOptions;
  #gaps: GapState | undefined;
  #cursor = 0;
  #lastRescanAt = Number.NEGATIVE_INFINITY;
  /** The horizon the store holds (undefined: none stored yet, or not read yet). */
  #storedHorizon: number | undefined;

  constructor(
    deps: {
      mailbox: Mailbox;
      store: IntakeStore;
      clock: Clock;
      logger: Logger;
      /** Reports one intake span per enqueued row; its traceparent is stored with the record. */
      tracer?: Tracer;
      /** The ingress's traces of the rows it appended: an intake span continues that trace. */
      ingressTraces?: IngressTraces;
    },
    options: Partial<InboxPollerOptions> = {},
  ) {
    this.#mailbox = deps.mailbox;
    this.#store = deps.store;
    this.#clock = deps.clock;
    this.#logger = deps.logger;
    this.#tracer = deps.tracer ?? noopTracer;
    this.#ingressTraces = deps.ingressTraces;
    this.#options = { ...DEFAULT_INBOX_POLLER_OPTIONS, ...options };
  }

  /** Ids at or below this are safe to process. Before the first step: nothing is. */
  get horizon(): number {
    return this.#gaps?.horizon ?? 0;
  }

  async step(signal?: AbortSignal): Promise<PollResult> {
    const first = this.#gaps === undefined;
    if (first) this.#storedHorizon = (await this.#store.intakeState())?.horizon;
    const gaps0 = this.#gaps ?? GapTracker.initial(this.#storedHorizon ?? 0);
    const cursor = this.#gaps ? this.#cursor : gaps0.horizon;
    const { batchSize } = this.#options;

    const rows = await this.#mailbox.scan(cursor, batchSize, signal);
    // While a gap holds the horizon, look right behind it too: the late id shows up there.
    const fill = GapTracker.blockingGap(gaps0) ? await this.#mailbox.scan(gaps0.horizon, batchSize, signal) : [];
    // Gaps are timed on the monotonic clock: a forward wall-clock jump must not pass an open insert.
    const now = this.#clock.monotonic();
    let fresh = dedupe([...rows, ...fill]).filter((r) => r.msgId > gaps0.horizon && !gaps0.seen.has(r.msgId));
    let observed = GapTracker.observe(gaps0, fresh.map((r) => r.msgId), now);
    // A gap is given up only after one more look at exactly its ids: the scans above start at the
    // horizon and stop after a batch, so a late row further up could otherwise go unseen.
    const expired = GapTracker.expired(observed, now, this.#options.gapGraceMs, MAX_GAPS_PER_STEP);
    const confirm = (await Promise.all(expired.map((g) => this.#mailbox.scan(g.from - 1, Math.min(batchSize, g.to - g.from + 1), signal)))).flat();
    const late = confirm.filter((r) => r.msgId > gaps0.horizon && !observed.seen.has(r.msgId));
    if (late.length > 0) {
      fresh = dedupe([...fresh, ...late]);
      observed = GapTracker.observe(observed, late.map((r) => r.msgId), now);
    }
    const { state, passed } = GapTracker.advance(observed, now, this.#options.gapGraceMs, expired.length);

    const enqueued = await this.#enqueueTraced(fresh.filter((r) => r.pending), state.horizon);
    // Only now, with the rows safely enqueued, does the tracker move: a failed enqueue re-reads them.
    this.#gaps = state;
    this.#cursor = Math.max(cursor, rows.at(-1)?.msgId ?? cursor);
    for (const g of passed) {
      this.#logger.warn("mailbox gap passed after grace", { from: g.from, to: g.to, waitedMs: now - g.since });
    }
    const behind = await this.#rescanBehind(now, signal);
    return { enqueued: [...enqueued, ...behind], full: rows.length >= batchSize, horizon: state.horizon, advanced: state.horizon > (first ? 0 : gaps0.horizon) };
  }

  /**
   * A row that commits after its gap was given up lands behind the horizon. It is never lost:
   * it is enqueued and becomes the head, and the log says its order could not be kept.
   */
  async #rescanBehind(now: number, signal?: AbortSignal): Promise<readonly number[]> {
    if (now - this.#lastRescanAt < this.#options.rescanEveryMs) return [];
    this.#lastRescanAt = now;
    const horizon = this.horizon;
    const from = Math.max(0, horizon - this.#options.rescanWindow);
    const rows = (await this.#mailbox.scan(from, this.#options.rescanWindow, signal)).filter(
      (r) => r.msgId <= horizon && r.pending,
    );
    if (rows.length === 0) return [];
    // Nearly every row here is enqueued already, so no intake span is started for them: the rare
    // late one starts its trace when the pump processes it.
    const inserted = await this.#store.enqueue(rows.map((r) => ({ msgId: r.msgId, receivedAt: r.receivedAt })), { horizon });
    for (const msgId of inserted) {
      this.#logger.error("mailbox row committed after its gap was passed; processed out of order", { msgId, horizon });
    }
    return inserted;
  }

  /**
   * Enqueues rows, each under its own intake span: a child of the ingress request's trace when the
   * ingress appended it in this process, else the start of a new trace (seed 000's mailbox path).
   */
  async #enqueueTraced(rows: readonly MailboxRow[], horizon: number): Promise<readonly number[]> {
    // Nothing to insert and nothing new to store: a round trip that would change nothing.
    if (rows.length === 0 && horizon === this.#storedHorizon) return [];
    const spans = new Map<number, TraceSpan>();
    for (const r of rows) {
      const parent = this.#ingressTraces?.get(r.msgId) ?? null;
      spans.set(r.msgId, this.#tracer.startSpan(SpanName.INTAKE, { parent, attributes: { "msgx.msg_id": r.msgId } }));
    }
    const entries = rows.map((r) => ({ msgId: r.msgId, receivedAt: r.receivedAt, traceparent: spans.get(r.msgId)?.traceparent ?? null }));
    try {
      const inserted = await this.#store.enqueue(entries, { horizon });
      this.#storedHorizon = Math.max(horizon, this.#storedHorizon ?? horizon);
      const fresh = new Set(inserted);
      for (const [msgId, span] of spans) span.end({ "msgx.enqueued": fresh.has(msgId) });
      this.#ingressTraces?.forget(rows.map((r) => r.msgId));
      return inserted;
    } catch (e) {
      for (const span of spans.values()) span.end({ "msgx.enqueued": false }, errorMessage(e));
      throw e;
    }
  }
}

function dedupe(rows: readonly MailboxRow[]): MailboxRow[] {
  const byId = new Map(rows.map((r) => [r.msgId, r]));
  return [...byId.values()].sort((a, b) => a.msgId - b.msgId);
}
