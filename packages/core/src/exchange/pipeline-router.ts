import type { DeliveryDeps, DeliveryFailpoint } from "../delivery/delivery-deps.js";
import type { OutboxStore } from "../delivery/outbox-store.js";
import { MsgDispatcher, type DispatchStep, type MsgDispatcherOptions } from "../delivery/msg-dispatcher.js";
import { CommittedEvents } from "../outbox/committed-events.js";
import { DEFAULT_SCHD_FLUSHER_OPTIONS, SchdFlusher, type SchdFlusherOptions } from "../delivery/schd-flusher.js";
import { errorMessage } from "../errors/msgx-error.js";
import { InboxPoller, type InboxPollerOptions } from "../intake/inbox-poller.js";
import { IngressTraces } from "../intake/ingress-traces.js";
import type { ContentHash } from "../model/content-hash.js";
import { Target } from "../outbox/outbox-event.js";
import type { DeliveryPort } from "../ports/delivery-port.js";
import { tracedDeliveryPort } from "../ports/traced-delivery-port.js";
import type { AppendedElsewhere, Mailbox } from "../ports/mailbox.js";
import { BackfillSweeper } from "../processing/backfill-sweeper.js";
import type { InboxEntry, IntakeState, PipelineStore } from "../processing/pipeline-store.js";
import type { ProcessorTable } from "../processing/processor.js";
import { Pump, type PumpDeps, type PumpFailpoint, type PumpStep } from "../processing/pump.js";
import type { PumpOptions } from "../processing/pump-options.js";
import type { PumpSpeculations } from "../processing/speculation-slot.js";
import type { LeaderMemorySizes } from "../processing/leader-memory.js";
import type { Clock } from "../runtime/clock.js";
import type { Logger } from "../runtime/logger.js";
import { normalTraceparent } from "../runtime/traceparent.js";
import { noopTracer, SpanName, type Tracer } from "../runtime/tracer.js";
import { after, PipelineStep, WAKE_EDGES, type RouterStep, type StepOutcome, type WakeSource } from "./wake-edges.js";

/** The target each dispatcher the pump wakes delivers. */
const DISPATCHER_TARGET: Readonly<Record<(typeof WAKE_EDGES.pump)[number], Target>> = {
  [PipelineStep.MSG_DELIVERY]: Target.MSG,
  [PipelineStep.REF_DELIVERY]: Target.REF,
};

/** A pump step that committed a run. */
export type ProcessedStep = Extract<PumpStep, { readonly did: "processed" }>;

/** The ports and pure functions the router's steps run over. */
export interface PipelineRouterDeps {
  readonly store: PipelineStore;
  readonly mailbox: Mailbox;
  readonly outbox: OutboxStore;
  readonly delivery: DeliveryPort;
  /** The only source of time: every wait the router asks for is computed from it. */
  readonly clock: Clock;
  readonly logger: Logger;
  /** Decodes one raw message (see `PumpDeps.decode`). */
  readonly decode: PumpDeps["decode"];
  readonly processors: ProcessorTable;
  readonly contentHash?: ContentHash;
  /** Lets the host's other work run (`PumpDeps.pause`, `DeliveryDeps.pause`). Default: none. */
  readonly pause?: PumpDeps["pause"];
  /** Named crash points of the pump and the delivery drivers (tests and the fault battery). */
  readonly failpoint?: (name: PumpFailpoint | DeliveryFailpoint) => void;
  /** Sees every run the pump committed (the runner's metrics). */
  readonly onProcessed?: (step: ProcessedStep) => void;
  /**
   * Reports the spans of a message's way: ingress → intake → process → deliver, one trace
   * (docs/operations.md "Tracing"). Default: records nothing, passes an ingress trace on.
   */
  readonly tracer?: Tracer;
}

/** What the ingress knows of a request beside its text. */
export interface ReceiveOptions {
  readonly signal?: AbortSignal;
  /** The request's W3C `traceparent` header as sent; an invalid one is ignored (a new trace starts). */
  readonly traceparent?: string | null;
}

export interface PipelineRouterOptions {
  /** The idle poll of intake, the pump and the msg/ref dispatchers. */
  readonly pollIntervalMs: number;
  /** The period of the backfill sweep. */
  readonly backfillSweepMs: number;
  readonly intake: Partial<InboxPollerOptions>;
  readonly pump: Partial<PumpOptions>;
  /** Options of both the msg and the ref dispatcher (each sets its own target and hand-over). */
  readonly delivery: Partial<Omit<MsgDispatcherOptions, "target" | "handOver">>;
  readonly schd: Partial<SchdFlusherOptions>;
  /**
   * The pump hands the events it commits to the msg and ref dispatchers in memory
   * (`CommittedEvents`), which then send them without reading them back while nothing else wrote
   * their target. Default on; off, every batch is read from the outbox.
   */
  readonly handOver: boolean;
}

export const DEFAULT_PIPELINE_ROUTER_OPTIONS: PipelineRouterOptions = {
  pollIntervalMs: 500,
  backfillSweepMs: 30_000,
  intake: {},
  pump: {},
  delivery: {},
  schd: {},
  handOver: true,
};

/**
 * The pipeline's middle: it owns the named steps (`PipelineStep`: intake, pump, backfill sweep, msg
 * and ref delivery, schd flusher) and the steps a composer adds (`add`), and routes between them
 * along `WAKE_EDGES`. It keeps no timers: a driver calls `run(name)` whenever a step is due, and the
 * outcome says when to call it again and which steps to wake. The pump reads the intake's horizon
 * here. `settle` lets the last writes land on shutdown; `stopped` resolves when this runner must
 * stop (a fenced pump step, a lost leadership).
 */
export class PipelineRouter {
  readonly #deps: PipelineRouterDeps;
  readonly #options: PipelineRouterOptions;
  readonly #poller: InboxPoller;
  readonly #pump: Pump;
  readonly #dispatchers: readonly MsgDispatcher[];
  readonly #flusher: SchdFlusher;
  /** Set once this runner must stop (fenced, leadership lost): it then sends nothing more. */
  #halted = false;
  readonly #tracer: Tracer;
  readonly #ingressTraces = new IngressTraces();
  readonly #steps = new Map<string, (signal: AbortSignal) => Promise<StepOutcome>>();
  #stop!: (why: string) => void;
  /** Resolves with the reason once this runner must stop: `fenced`, or `leadership lost: <why>`. */
  readonly stopped = new Promise<string>((resolve) => (this.#stop = (why) => ((this.#halted = true), resolve(why))));

  /** How many flights and identity owners the pump's memory holds (`msgx_leader_memory_entries`). */
  get leaderMemory(): LeaderMemorySizes {
    return this.#pump.memory.sizes;
  }

  /** How the pump's pipelined steps used their speculations (`PumpOptions.pipelined`). */
  get speculations(): PumpSpeculations {
    return this.#pump.speculations;
  }

  constructor(deps: PipelineRouterDeps, options: Partial<PipelineRouterOptions> = {}) {
    this.#deps = deps;
    const o = (this.#options = { ...DEFAULT_PIPELINE_ROUTER_OPTIONS, ...options });
    const { store, mailbox, clock, logger, failpoint } = deps;
    const pause = deps.pause ? { pause: deps.pause } : {};
    const base = { store, mailbox, clock, logger };
    const tracer = (this.#tracer = deps.tracer ?? noopTracer);
    // The intake runs here, beside the pump: its enqueues go through the pump, whose runs then come
    // from memory (`PumpOptions.intakeInProcess`).
    const intakeStore = {
      intakeState: () => store.intakeState(),
      enqueue: (entries: readonly InboxEntry[], intake: IntakeState) => this.#pump.enqueue(entries, () => store.enqueue(entries, intake)),
    };
    this.#poller = new InboxPoller({ ...base, store: intakeStore, tracer, ingressTraces: this.#ingressTraces }, o.intake);
    const committedEvents = o.handOver ? new CommittedEvents() : undefined;
    const pumpDeps: PumpDeps = {
      ...base,
      ...(committedEvents ? { committedEvents } : {}),
      decode: deps.decode,
      processors: deps.processors,
      ...(deps.contentHash ? { contentHash: deps.contentHash } : {}),
      ...pause,
      horizon: () => this.#poller.horizon,
      ...(failpoint ? { failpoint } : {}),
      tracer,
    };
    this.#pump = new Pump(pumpDeps, { intakeInProcess: true, ...o.pump });
    const sweeper = new BackfillSweeper(base);
    const port = deps.tracer ? tracedDeliveryPort(deps.delivery, deps.tracer) : deps.delivery;
    const delivery: DeliveryDeps = { outbox: deps.outbox, delivery: port, clock, logger, ...(failpoint ? { failpoint } : {}), ...pause };
    const handOver = (target: Target) => (committedEvents ? { handOver: committedEvents.of(target) } : {});
    const msg = new MsgDispatcher(delivery, { ...o.delivery, target: Target.MSG, ...handOver(Target.MSG) });
    // Reference events have their own dispatcher: a reference head in backoff never holds the
    // flight change stream, nor the other way round.
    const ref = new MsgDispatcher(delivery, { ...o.delivery, target: Target.REF, ...handOver(Target.REF) });
    const flusher = (this.#flusher = new SchdFlusher(delivery, o.schd));
    this.#dispatchers = [msg, ref];

    this.#steps.set(PipelineStep.MSG_DELIVERY, async (s) => this.#dispatched(await msg.step(s)));
    this.#steps.set(PipelineStep.REF_DELIVERY, async (s) => this.#dispatched(await ref.step(s)));
    this.#steps.set(PipelineStep.SCHD_FLUSHER, async (s) => after(this.#until((await flusher.step(s)).next, o.schd.intervalMs ?? DEFAULT_SCHD_FLUSHER_OPTIONS.intervalMs)));
    this.#steps.set(PipelineStep.PUMP, (s) => this.#pumpStep(s));
    this.#steps.set(PipelineStep.INTAKE, async (s) => {
      const r = await this.#poller.step(s);
      return { after: r.full ? 0 : o.pollIntervalMs, wake: r.enqueued.length > 0 || r.advanced ? WAKE_EDGES.intake : [] };
    });
    this.#steps.set(PipelineStep.BACKFILL, async (s) => {
      await sweeper.step(s);
      return after(o.backfillSweepMs);
    });
  }

  /** Every step's name, the pipeline's own first, then the added ones in the order added. */
  get names(): readonly string[] {
    return [...this.#steps.keys()];
  }

  /** The intake's safe horizon: the pump processes no id above it. */
  get horizon(): number {
    return this.#poller.horizon;
  }

  /** Adds a composer's step; its outcome may wake any step by name. */
  add(step: RouterStep): void {
    if (this.#steps.has(step.name)) throw new RangeError(`a step named ${step.name} exists already`);
    this.#steps.set(step.name, (signal) => step.run(signal));
  }

  /** Runs one step once. An error is the step's own (the driver retries it); outages are outcomes. */
  run(name: string, signal: AbortSignal): Promise<StepOutcome> {
    const step = this.#steps.get(name);
    if (!step) throw new RangeError(`no step named ${name}`);
    return step(signal);
  }

  /** The steps an event from outside the steps wakes (`WAKE_EDGES`). */
  wakes(source: WakeSource): readonly string[] {
    return WAKE_EDGES[source];
  }

  /**
   * The ingress: appends one raw message to the mailbox under an ingress span (a child of a valid
   * `traceparent`, else a new trace) and keeps that span's trace for the intake; the intake is to be woken.
   */
  async receive(raw: string, options: ReceiveOptions = {}): Promise<{ readonly msgId: number; readonly wake: readonly string[] }> {
    const span = this.#tracer.startSpan(SpanName.INGRESS, { parent: normalTraceparent(options.traceparent), attributes: { "msgx.chars": raw.length } });
    let msgId: number;
    try {
      msgId = await this.#deps.mailbox.append(raw, options.signal);
    } catch (e) {
      span.end({}, errorMessage(e));
      throw e;
    }
    span.end({ "msgx.msg_id": msgId });
    if (span.traceparent !== null) this.#ingressTraces.remember(msgId, span.traceparent);
    return { msgId, wake: WAKE_EDGES.ingress };
  }

  /**
   * The ingress that appended elsewhere (the runner's ingress thread, its own connections): hands
   * the committed rows' texts to the mailbox (`appendedElsewhere`), keeps each one's trace for the
   * intake as `receive` does (its ingress span ends here, when the news arrives), and answers the
   * steps to wake.
   */
  appendedElsewhere(appends: readonly AppendedElsewhere[]): readonly string[] {
    this.#deps.mailbox.appendedElsewhere?.(appends);
    for (const a of appends) {
      const span = this.#tracer.startSpan(SpanName.INGRESS, { parent: normalTraceparent(a.traceparent), attributes: { "msgx.chars": a.text.length } });
      span.end({ "msgx.msg_id": a.msgId });
      if (span.traceparent !== null) this.#ingressTraces.remember(a.msgId, span.traceparent);
    }
    return WAKE_EDGES.ingress;
  }

  /** Another runner took the leadership: this one must stop at once. */
  leadershipLost(why: string): void {
    this.#deps.logger.error("leadership lost", { why });
    this.#stop(`leadership lost: ${why}`);
  }

  /**
   * Waits for the writes still on their way once the driver has stopped calling steps: the pump's
   * last write-back (cut off, the sweep would redo it) and each dispatcher's last mark (unmarked,
   * its batch would be resent); then flushes the coalesced schd events now rather than at the next
   * interval, so a stop leaves no schd state unsent that was due (a runner that must stop — fenced,
   * leadership lost — sends nothing more). A failure is logged, never thrown: what is left stays
   * pending for the next leader. `signal` bounds that last flush (a broker that stopped answering).
   */
  async settle(signal?: AbortSignal): Promise<void> {
    const { logger } = this.#deps;
    await this.#pump.settle().catch((e: unknown) => logger.warn("last backfill not finished; the sweep will redo it", { error: errorMessage(e) }));
    for (const d of this.#dispatchers) {
      await d.settle().catch((e: unknown) => logger.warn("last delivery mark not written; its events will be resent", { error: errorMessage(e) }));
    }
    if (!this.#halted) await this.#lastSchdFlush(signal).catch((e: unknown) => logger.warn("last schd flush failed; its events stay pending", { error: errorMessage(e) }));
  }

  /** Flushes window after window while each one makes progress and more is behind it. */
  async #lastSchdFlush(signal: AbortSignal | undefined): Promise<void> {
    for (;;) {
      signal?.throwIfAborted();
      const step = await this.#flusher.flush(signal);
      if (step.did === "outage") throw new Error(step.error);
      if (step.did !== "flushed" || step.markedSent.length === 0 || step.next > this.#deps.clock.now()) return;
    }
  }

  async #pumpStep(signal: AbortSignal): Promise<StepOutcome> {
    const step = await this.#pump.step(signal);
    const { pollIntervalMs } = this.#options;
    switch (step.did) {
      case "processed": {
        this.#deps.onProcessed?.(step);
        const written = new Set(step.targets);
        return { after: 0, wake: WAKE_EDGES.pump.filter((name) => written.has(DISPATCHER_TARGET[name])) };
      }
      case "fenced":
        this.#deps.logger.error("leadership lost: a newer leader holds the pipeline", { error: step.error });
        this.#stop("fenced");
        return after(pollIntervalMs);
      case "wait":
        return after(this.#untilBackfill(Math.max(0, step.until - this.#deps.clock.now())));
      case "outage":
        // The breaker decides when the pump is stepped again: a write-back falling due meanwhile waits for it.
        return after(Math.max(0, step.until - this.#deps.clock.now()));
      default:
        return after(this.#untilBackfill(pollIntervalMs));
    }
  }

  /**
   * `wait`, or less when the pump's pending write-back falls due sooner: the next step starts it
   * (every step the breaker lets through ends by starting a due batch, so this never spins).
   */
  #untilBackfill(wait: number): number {
    const dueAt = this.#pump.backfillDueAt();
    return dueAt === null ? wait : Math.min(wait, Math.max(0, dueAt - this.#deps.clock.now()));
  }

  #dispatched(step: DispatchStep): StepOutcome {
    return after(this.#until(step.next, this.#options.pollIntervalMs));
  }

  /** The wait until an instant, or `idle` when there is none. */
  #until(next: number | null, idle: number): number {
    return next === null ? idle : Math.max(0, next - this.#deps.clock.now());
  }
}
