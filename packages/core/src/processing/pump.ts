import type { DecodeResult } from "../codec/decode-result.js";
import { errorMessage, isMsgxError, isOutage } from "../errors/msgx-error.js";
import { sha256Hex, type ContentHash } from "../model/content-hash.js";
import { ProcStatus, type ProcRecord } from "../model/proc-record.js";
import type { Clock } from "../runtime/clock.js";
import type { Logger } from "../runtime/logger.js";
import { noopTracer, SpanName, type TraceSpan, type Tracer } from "../runtime/tracer.js";
import type { Mailbox } from "../ports/mailbox.js";
import type { InboxEntry, PipelineStore, PipelineTx } from "./pipeline-store.js";
import { KnownUnfinished } from "./known-unfinished.js";
import { decideExhaust, decideFailure, decideRun } from "./decide-run.js";
import { prepareDecodedRun, type PreparedRun } from "./prepare-run.js";
import { decideTick } from "./decide-tick.js";
import { decodeRaws } from "./decode-raws.js";
import { GuardedSteps } from "../runtime/guarded-step.js";
import type { BreakerState } from "../runtime/outage-breaker.js";
import type { ProcessorTable } from "./processor.js";
import type { RunDecision, RunWarning } from "./run-decision.js";
import type { RunContext } from "./run-context.js";
import { LeaderMemory } from "./leader-memory.js";
import { StaleRunError } from "./stale-run-error.js";
import type { CommittedEvents } from "../outbox/committed-events.js";
import type { Target } from "../outbox/outbox-event.js";
import { takeReady } from "./take-ready.js";
import type { Speculation } from "./speculation.js";
import { DEFAULT_PUMP_OPTIONS, type PumpOptions } from "./pump-options.js";
import { SpeculationSlot, type PumpSpeculations } from "./speculation-slot.js";
import { BackfillBehind } from "./backfill-behind.js";
import { commitFromMemory, type Premade } from "./commit-from-memory.js";
import { withTraces } from "./with-traces.js";

export interface PumpDeps {
  readonly store: PipelineStore;
  readonly mailbox: Mailbox;
  readonly clock: Clock;
  readonly logger: Logger;
  /**
   * Decodes one raw message; pure whatever it returns. A promise lets a large document be decoded
   * in slices while other work runs (`decodeMessageInSlices`); messages are decoded one at a time.
   */
  readonly decode: (raw: string) => DecodeResult | Promise<DecodeResult>;
  readonly processors: ProcessorTable;
  /**
   * SHA-256 (hex) of a raw text, stored with each identity binding to tell a reused identity from
   * an identical re-insert. Default the core's pure `sha256Hex`; the runner passes `node:crypto`'s.
   */
  readonly contentHash?: ContentHash;
  /** The intake's safe horizon: ids above it are never processed. */
  readonly horizon: () => number;
  /** Named points where tests (and the fault battery) may crash the process. */
  readonly failpoint?: (name: PumpFailpoint) => void;
  /** Reports one span per message processed, a child of the message's intake span. Default: none. */
  readonly tracer?: Tracer;
  /**
   * Lets the host's other work run, its pending I/O first (the runner: one `setImmediate` turn).
   * The pump pauses before a speculation reads and decodes the run behind a commit (pipelined
   * steps): the commit, handed to the store just before, is then on its way to the database
   * before the decoding holds the event loop for milliseconds. Default: none.
   */
  readonly pause?: () => Promise<void>;
  /**
   * Where the pump hands the events of each run it commits in one round trip to the dispatchers of
   * its own process (`CommittedEvents`), and says when the store may hold events it did not hand
   * over (`lost`: a transaction, a commit in doubt, a failed step, its memory dropped). Default: none.
   */
  readonly committedEvents?: CommittedEvents;
}

/** Where a failpoint can fire: before a run's transaction commits, and after it, before backfill. */
export type PumpFailpoint = "pump.before-commit" | "pump.after-commit";

/** What one `step` did, and when the driver should call again. */
export type PumpStep =
  | { readonly did: "idle" }
  | { readonly did: "await-horizon"; readonly msgId: number }
  | { readonly did: "wait"; readonly until: number }
  | { readonly did: "outage"; readonly until: number; readonly error: string }
  | { readonly did: "fenced"; readonly error: string }
  | {
      readonly did: "processed";
      readonly records: readonly ProcRecord[];
      /**
       * The delivery targets the committed run gave events to: the router wakes their dispatchers.
       * Read from the committed decision, not from processor calls, which a speculation makes too.
       */
      readonly targets: readonly Target[];
      readonly warnings?: readonly RunWarning[];
    };

/**
 * The message pump (seed 000 §3.2–3.3): one head at a time, in mailbox id order. `step` does at
 * most one unit of work and never sleeps; the runner's loop (or a test) decides when to call it
 * again from the result. A dependency outage opens the breaker and spends no attempt.
 */
export class Pump {
  readonly #deps: PumpDeps;
  readonly #options: PumpOptions;
  readonly #steps: GuardedSteps<PumpStep>;
  #healthySince: number;
  /** The write-back of committed runs to the mailbox, behind the steps. */
  readonly #backfill: BackfillBehind;
  /** The flights and identity owners the fast path decides from (lost with the pump, as in a crash). */
  readonly memory: LeaderMemory;
  /** The unfinished records known from memory; absent when the intake runs elsewhere. */
  readonly #known: KnownUnfinished | undefined;
  /** Pipelined steps: the speculation on the run behind the one committing (only with the intake in process). */
  readonly #slot: SpeculationSlot | undefined;
  /** The last run `commitRun` committed; null once anything dropped the memory. */
  #lastCommitted: RunDecision | null = null;
  /** Whether this step's head and run came from `#known` rather than from the store. */
  #candidatesFromMemory = false;
  /** The generation the runs handed over to `committedEvents` were committed at, since it last reported `lost`. */
  #handedGeneration: number | undefined;

  constructor(deps: PumpDeps, options: Partial<PumpOptions> = {}) {
    this.#deps = deps;
    this.#options = { ...DEFAULT_PUMP_OPTIONS, ...options };
    this.#healthySince = deps.clock.now();
    this.#backfill = new BackfillBehind(deps, this.#options.backfill);
    this.memory = new LeaderMemory(this.#options.memory, this.#options.identity.window);
    const known = (this.#known = this.#options.intakeInProcess ? new KnownUnfinished(this.#options.resyncMs) : undefined);
    this.#slot = this.#options.pipelined && known !== undefined ? this.#speculationSlot(known) : undefined;
    this.#steps = new GuardedSteps<PumpStep>({
      clock: deps.clock,
      logger: deps.logger,
      policy: this.#options.breaker,
      log: { paused: "pump paused: dependency unavailable", recovered: "pump dependencies recovered" },
      caught: (e) => (isMsgxError(e) && e.kind === "FENCED" ? { did: "fenced", error: e.message } : undefined),
      // Anything else a port reports as retriable (a dropped connection, a serialization
      // failure on a read) is the dependency's trouble, not a message's: pause, spend nothing.
      pauses: (e) => isOutage(e) || (isMsgxError(e) && e.retriable),
      outage: (error, until) => ({ did: "outage", until, error }),
    });
  }

  get breaker(): BreakerState {
    return this.#steps.breaker;
  }

  /** How the speculations of pipelined steps ended so far. */
  get speculations(): PumpSpeculations {
    return this.#slot?.counts ?? { started: 0, decided: 0, read: 0, discarded: 0 };
  }

  #speculationSlot(known: KnownUnfinished): SpeculationSlot {
    const { maxRun, speculationMaxAgeMs: maxAgeMs } = this.#options;
    return new SpeculationSlot({
      clock: this.#deps.clock,
      horizon: () => this.#deps.horizon(),
      memory: this.memory,
      known,
      maxRun,
      maxAgeMs,
      // The commit this speculation is behind was only just handed to the store: it must be on its
      // way to the database before the decoding takes the event loop (docs/benchmarks.md).
      prepare: async (run, signal) => {
        await this.#deps.pause?.();
        return this.#prepare(run, signal);
      },
      fastPath: (run) => this.#fastPath(run),
      decide: (run, state, now) => decideRun(run, state, this.#context(now)),
    });
  }

  /**
   * Runs an enqueue of this process's intake (`PipelineStore.enqueue`) so that the records it
   * inserts join the pump's memory and the next run comes from there. Without
   * `intakeInProcess`, only runs it.
   */
  async enqueue(entries: readonly InboxEntry[], enqueue: () => Promise<readonly number[]>): Promise<readonly number[]> {
    const known = this.#known;
    if (known === undefined) return enqueue();
    known.enqueueStarted();
    let inserted: readonly number[];
    try {
      inserted = await enqueue();
    } catch (e) {
      known.enqueueEnded(undefined, this.#deps.clock.now());
      throw e;
    }
    const fresh = new Set(inserted);
    known.enqueueEnded(entries.filter((e) => fresh.has(e.msgId)), this.#deps.clock.now());
    return inserted;
  }

  async step(signal?: AbortSignal): Promise<PumpStep> {
    return this.#steps.run(
      async (now, probing) => {
        // A probe after an outage works as if healthy since now: had the outage lasted past the
        // head deadline, the head must still get its full deadline, starting when work resumes.
        const work = () => this.#work(now, probing ? now : this.#healthySince, signal);
        const result = await work().catch((e: unknown) => {
          // A failed or refused step may have left the store unlike memory (a commit in doubt).
          this.#known?.forget();
          this.#deps.committedEvents?.lost();
          // A run taken from memory that was not the store's head run: once more, from the store.
          if (e instanceof StaleRunError && e.notAtHead) return work();
          throw e;
        });
        if (result.did === "processed") this.#logDead(result.records);
        // Only a step that committed leaves its write-back running; any other starts the pending
        // batch if it is due and ends with none running.
        if (result.did !== "processed") await this.#backfill.due(now);
        if (probing) this.#healthySince = now;
        return result;
      },
      signal,
    );
  }

  /** One structured error line per message that ended DEAD in a committed run: an operator's alert hook. */
  #logDead(records: readonly ProcRecord[]): void {
    for (const r of records) {
      if (r.status !== ProcStatus.DEAD) continue;
      this.#deps.logger.error("message dead", { msgId: r.msgId, errorClass: r.errorClass, reason: r.reason, attempts: r.attempts });
    }
  }

  async #work(now: number, healthySince: number, signal?: AbortSignal): Promise<PumpStep> {
    const { policy, unsupported } = this.#options;
    // Only the step right after the run it was made behind may use a speculation.
    const speculation = this.#slot?.take() ?? null;
    const candidates = await this.#candidates(now);
    const head = candidates[0];
    const tick = decideTick({ head, now, horizon: this.#deps.horizon(), policy, unsupported, healthySince });
    switch (tick.action) {
      case "idle":
        return { did: "idle" };
      case "await-horizon":
        return { did: "await-horizon", msgId: tick.msgId };
      case "wait":
        return { did: "wait", until: tick.until };
      case "exhaust": {
        const decision = decideExhaust(head as ProcRecord, tick.reason, { now, policy });
        await this.#commit(decision);
        await this.#backfill.add(decision, now);
        return processedStep(decision);
      }
      case "process":
        return this.#processRun(candidates, now, signal, speculation);
    }
  }

  /**
   * The head and the run behind it (the head is the first unfinished record): from memory when it
   * holds them, else one query (from the head, or what follows the prefix memory holds), whose
   * answer memory keeps (`KnownUnfinished`).
   */
  async #candidates(now: number): Promise<readonly ProcRecord[]> {
    const { maxRun } = this.#options;
    const known = this.#known;
    if (known === undefined) return this.#deps.store.unfinished(0, maxRun);
    // A pipelined step also needs the run behind its own in memory: its speculation takes it from there.
    const needed = this.#slot === undefined ? maxRun : 2 * maxRun;
    const held = known.candidates(needed, now);
    this.#candidatesFromMemory = held !== undefined;
    if (held !== undefined) return held.slice(0, maxRun);
    const query = known.queryStarted(needed);
    const queried = await this.#deps.store.unfinished(query.from, query.limit);
    return known.queried(queried, now, query).slice(0, maxRun);
  }

  async #processRun(candidates: readonly ProcRecord[], now: number, signal: AbortSignal | undefined, speculation: Speculation | null): Promise<PumpStep> {
    const ready = takeReady(candidates, now, this.#deps.horizon());
    const reused = speculation === null ? undefined : await this.#slot?.reuse(speculation, ready, now, this.#lastCommitted);
    const run = reused?.run ?? ready;
    const prepared = reused?.prepared ?? (await this.#prepare(run, signal));
    const spans = this.#startSpans(run);
    try {
      const step = await this.#commitRun(prepared, spans, now, signal, reused?.premade);
      const ended = new Map(step.did === "processed" ? step.records.map((r) => [r.msgId, r.status] as const) : []);
      for (const [msgId, span] of spans) span.end({ "msgx.status": ended.get(msgId) ?? "not-committed" });
      return step;
    } catch (e) {
      for (const span of spans.values()) span.end({ "msgx.status": "not-committed" }, errorMessage(e));
      throw e;
    }
  }

  /** Reads and decodes a run's messages and lists the state they need. */
  async #prepare(run: readonly ProcRecord[], signal?: AbortSignal): Promise<PreparedRun> {
    const { mailbox, decode, processors } = this.#deps;
    const raws = await mailbox.readRaw(run.map((r) => r.msgId), signal);
    const { decoded, hashes } = await decodeRaws(run, raws, decode, this.#deps.contentHash ?? sha256Hex);
    return prepareDecodedRun(run, decoded, processors, this.#options.identity, hashes);
  }

  /** A run that reads open requests or reference rows decides in a transaction: the leader holds neither. */
  #fastPath(run: PreparedRun): boolean {
    return this.#options.decideFromMemory && run.needsRequests !== true && run.referenceTypes === undefined;
  }

  #context(now: number): RunContext {
    const { policy, identity, unsupported, maxRecordBytes } = this.#options;
    return { now, policy, identity, processors: this.#deps.processors, unsupported, maxRecordBytes };
  }

  /** One process span per message of the run, continuing the trace stored with its record. */
  #startSpans(run: readonly ProcRecord[]): Map<number, TraceSpan> {
    const tracer = this.#deps.tracer ?? noopTracer;
    return new Map(run.map((r) => [r.msgId, tracer.startSpan(SpanName.PROCESS, { parent: r.traceparent ?? null, attributes: { "msgx.msg_id": r.msgId } })]));
  }

  async #commitRun(prepared: PreparedRun, spans: ReadonlyMap<number, TraceSpan>, now: number, signal?: AbortSignal, premade?: Premade): Promise<PumpStep> {
    const ctx = this.#context(now);

    // Group commit: try the whole run; a database fault that is not an outage is pinned to its
    // message by retrying ever smaller prefixes, down to one message, which then records FAILED.
    for (let size = prepared.messages.length; size >= 1; size = Math.floor(size / 2)) {
      const part = { ...prepared, messages: prepared.messages.slice(0, size) };
      // A speculated decision is the whole run's.
      const made = size === prepared.messages.length ? premade : undefined;
      try {
        const decision = (this.#fastPath(part) ? await this.#commitFromMemory(part, spans, ctx, signal, made) : undefined) ?? (await this.#commitInTransaction(part, spans, ctx));
        this.#deps.failpoint?.("pump.after-commit");
        for (const w of decision.warnings ?? []) this.#deps.logger.warn("message warning", { msgId: w.msgId, code: w.code, detail: w.detail });
        await this.#backfill.add(decision, now);
        return processedStep(decision);
      } catch (e) {
        if (isOutage(e) || !isMsgxError(e) || e.kind === "FENCED" || (e instanceof StaleRunError && e.notAtHead)) throw e;
        this.#deps.logger.warn("run commit failed; retrying smaller", { size, error: errorMessage(e) });
        if (size === 1) {
          const decision = decideFailure(part.messages[0]!.record, `commit failed: ${errorMessage(e)}`, ctx);
          await this.#commit(decision);
          await this.#backfill.add(decision, now);
          return processedStep(decision);
        }
      }
    }
    return { did: "idle" };
  }

  /**
   * A run taken from memory is a guess: `commitRun` checks it is the store's head run, a
   * transaction does not. Before a transaction commits such a run, the store is asked for its
   * unfinished records from the head, as a run taken from the store was (another process's intake
   * may have enqueued lower ids that memory never saw). Not the head run: `StaleRunError`
   * (`notAtHead`), and the step takes it again from the store.
   */
  async #checkAtHead(records: readonly ProcRecord[]): Promise<void> {
    if (!this.#candidatesFromMemory || records.length === 0) return;
    const stored = await this.#deps.store.unfinished(0, records.length);
    if (stored.length !== records.length || stored.some((r, i) => r.msgId !== records[i]!.msgId)) {
      throw new StaleRunError(`the run ${records.map((r) => r.msgId).join(", ")} is not the unfinished records from the head`, { notAtHead: true });
    }
  }

  /** The slow path: reads the state the run needs and commits the decision in one transaction. */
  async #commitInTransaction(part: PreparedRun, spans: ReadonlyMap<number, TraceSpan>, ctx: RunContext): Promise<RunDecision> {
    await this.#checkAtHead(part.messages.map((m) => m.record));
    try {
      return await this.#deps.store.transaction(async (tx) => {
        // Open requests are read (and locked) only when a message of the run may answer one.
        const [identityOwners, flights, requests, references] = await Promise.all([
          tx.identityOwners(part.identityKeys),
          tx.loadFlights(part.flightIds),
          part.needsRequests ? tx.openRequests() : [],
          part.referenceTypes ? tx.loadReferences(part.referenceTypes) : [],
        ]);
        const d = withTraces(decideRun(part, { identityOwners, flights, requests, references }, ctx), spans);
        await applyDecision(tx, d);
        this.#deps.failpoint?.("pump.before-commit");
        return d;
      }, this.#fenceOption());
    } finally {
      // A transaction moves the state generation on: what the memory holds is no longer current.
      this.#forgetAll();
    }
  }

  /** The fast path (`commitFromMemory`); while the first commit is on its way, the run behind it is speculated on. */
  async #commitFromMemory(part: PreparedRun, spans: ReadonlyMap<number, TraceSpan>, ctx: RunContext, signal?: AbortSignal, premade?: Premade): Promise<RunDecision | undefined> {
    const deps = {
      store: this.#deps.store,
      memory: this.memory,
      fence: this.#fenceOption(),
      beforeCommit: () => this.#deps.failpoint?.("pump.before-commit"),
      sent: (decision: RunDecision, decidedAt: number, generation: number) => this.#slot?.start(decision, decidedAt, generation, signal),
      forget: () => this.#forgetAll(),
      committed: (decision: RunDecision, eventIds: readonly number[], generation: number) => this.#handOver(decision, eventIds, generation, ctx.now),
    };
    const decision = await commitFromMemory(deps, part, spans, ctx, premade);
    if (decision === undefined) return undefined;
    this.#known?.committed(decision.records);
    this.#lastCommitted = decision;
    return decision;
  }

  /**
   * Hands a committed run's events to the dispatchers of this process. Only a run committed at the
   * generation of the one handed over before it follows it with nothing in between: a generation
   * that moved on (another writer, which may have written events; the memory reloaded it) first
   * reports the hand-over lost.
   */
  #handOver(decision: RunDecision, eventIds: readonly number[], generation: number, now: number): void {
    const committedEvents = this.#deps.committedEvents;
    if (committedEvents === undefined) return;
    if (generation !== this.#handedGeneration) {
      committedEvents.lost();
      this.#handedGeneration = generation;
    }
    committedEvents.committed(decision.events, eventIds, now);
  }

  async #commit(decision: RunDecision): Promise<void> {
    await this.#checkAtHead(decision.records);
    try {
      await this.#deps.store.transaction((tx) => applyDecision(tx, decision), this.#fenceOption());
    } finally {
      this.#forgetAll();
    }
  }

  /**
   * After a transaction (which moves the state generation on and is not checked against the
   * head), or a commit in doubt: the flights, owners and unfinished records are asked again.
   */
  #forgetAll(): void {
    this.#deps.committedEvents?.lost();
    this.#handedGeneration = undefined;
    this.memory.drop();
    this.#known?.forget();
    this.#lastCommitted = null;
  }

  /**
   * Writes back what is pending and waits for it, and for the read of the last speculation. A
   * stopping runner calls it so the write-back is not cut off (were it cut off, the sweep would
   * redo it) and no read outlives the stop.
   */
  async settle(): Promise<void> {
    await this.#slot?.settled();
    await this.#backfill.flush();
  }

  /** When the pending write-back is due (`PumpOptions.backfill`): the driver calls `step` again by then. Null: none pending. */
  backfillDueAt(): number | null {
    return this.#backfill.dueAt();
  }

  #fenceOption(): { fence?: number } {
    return this.#options.fence === undefined ? {} : { fence: this.#options.fence };
  }
}

/** What a step that committed `decision` answers. */
function processedStep(decision: RunDecision): PumpStep {
  const targets = [...new Set(decision.events.map((e) => e.target))];
  return { did: "processed", records: decision.records, targets, ...(decision.warnings === undefined ? {} : { warnings: decision.warnings }) };
}

/** Writes a decision and the audit rows it carries, in the caller's transaction. */
async function applyDecision(tx: PipelineTx, decision: RunDecision): Promise<void> {
  await tx.applyRun(decision);
  for (const audit of decision.audits ?? []) await tx.appendAudit(audit);
}
