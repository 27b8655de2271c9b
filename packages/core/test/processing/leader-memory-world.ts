import {
  createPump,
  HistorySweeper,
  type InboxPoller,
  isMsgxError,
  type Pump,
  ReplayService,
  SimulatedCrashMarker,
  silentLogger,
  StaleRunError,
  type FlightState,
  type IdentityOwner,
  type PipelineStore,
  type PumpSpeculations,
} from "@msgx/core";
import { InMemoryMailbox, InMemoryMaintenanceStore, InMemoryPipelineStore, ManualClock, type PumpFailpoint } from "@msgx/core/testing";

const HOUR = 3_600_000;
export const START = Date.UTC(2026, 2, 5, 2, 0);
/** Short, so a command sequence reaches an identity owner older than the window. */
export const WINDOW_MS = 10 * HOUR;

/** How a world is broken for the guard-removal checks (none: the real guards). */
export type Broken = "none" | "outside-writer-keeps-generation" | "commit-run-skips-generation";

/** The identity options of every world's pump (and of any test that decides as it does). */
export const IDENTITY = { includeDayBoundary: false, window: WINDOW_MS } as const;

/** How the world's pump runs, over the leader-memory property's defaults. */
export interface LeaderWorldOptions {
  /** The intake's enqueues go through the pump, as in `PipelineRouter` (`PumpOptions.intakeInProcess`). Default false. */
  readonly inProcess?: boolean;
  /** `PumpOptions.pipelined` (default true; it takes effect only `inProcess`). */
  readonly pipelined?: boolean;
  /** Default 5. */
  readonly maxRun?: number;
  /** The pump's breaker probes again at once: an outage costs no time, so both worlds' clocks stay together. */
  readonly instantBreaker?: boolean;
  /** `PumpDeps.pause`. Default none. */
  readonly pause?: () => Promise<void>;
}

/**
 * The pipeline over the fakes as the leader runs it: poller, pump (real flight processors) and the
 * writers beside it that the leader's memory must survive — replay, the history sweep and an
 * operator's transaction. A crash or takeover rebuilds the pump (its memory is lost); the stores
 * keep what they committed.
 */
export class LeaderWorld {
  readonly clock = new ManualClock(START);
  readonly mailbox = new InMemoryMailbox(this.clock);
  readonly pipeline = new InMemoryPipelineStore(this.clock);
  readonly maintenance = new InMemoryMaintenanceStore(this.pipeline, this.clock);
  readonly store: PipelineStore;
  poller!: InboxPoller;
  pump!: Pump;
  armed: PumpFailpoint | undefined;
  /** What `commitRun` answered, over the world's life: the property must reach each case. */
  readonly answers = { committed: 0, staleGeneration: 0, boundKeys: 0 };
  /** The speculations of every pump the world has had (crashes and takeovers replace the pump). */
  readonly #speculations = { started: 0, decided: 0, read: 0, discarded: 0 };
  readonly #fromMemory: boolean;

  constructor(
    fromMemory: boolean,
    readonly broken: Broken = "none",
    readonly options: LeaderWorldOptions = {},
  ) {
    this.#fromMemory = fromMemory;
    const commitRun = this.pipeline.commitRun.bind(this.pipeline);
    this.pipeline.commitRun = async (decision, options) => {
      try {
        const eventIds = await commitRun(decision, options);
        this.answers.committed += 1;
        return eventIds;
      } catch (e) {
        if (e instanceof StaleRunError) this.answers[e.boundKeys.length > 0 ? "boundKeys" : "staleGeneration"] += 1;
        throw e;
      }
    };
    this.store = broken === "commit-run-skips-generation" ? skippingGenerationCheck(this.pipeline) : this.pipeline;
    this.restart();
  }

  /** A new pump and intake over the same stores, fenced with the current epoch: what a crash or a new leader leaves. */
  restart(): void {
    if (this.pump !== undefined) for (const [k, v] of Object.entries(this.pump.speculations)) this.#speculations[k as keyof PumpSpeculations] += v;
    const failpoint = (name: PumpFailpoint) => {
      if (this.armed !== name) return;
      this.armed = undefined;
      throw new SimulatedCrashMarker(name);
    };
    const o = this.options;
    const composed = createPump(
      { store: o.inProcess ? this.#enqueuingThroughPump(this.store) : this.store, mailbox: this.mailbox, clock: this.clock, failpoint, ...(o.pause ? { pause: o.pause } : {}) },
      {
        intake: { batchSize: 50, gapGraceMs: 1_000 },
        pump: {
          maxRun: o.maxRun ?? 5,
          fence: this.pipeline.tables.epoch,
          decideFromMemory: this.#fromMemory,
          identity: IDENTITY,
          intakeInProcess: o.inProcess ?? false,
          pipelined: o.pipelined ?? true,
          ...(o.instantBreaker ? { breaker: { initialMs: 0, maxMs: 0 } } : {}),
        },
      },
    );
    this.poller = composed.intake;
    this.pump = composed.pump;
  }

  /** The speculations of every pump so far, the current one's included. */
  get speculations(): PumpSpeculations {
    const now = this.pump.speculations;
    const s = this.#speculations;
    return { started: s.started + now.started, decided: s.decided + now.decided, read: s.read + now.read, discarded: s.discarded + now.discarded };
  }

  /** The store the intake sees when it runs beside the pump: its enqueues go through the pump (`Pump.enqueue`), as in `PipelineRouter`. */
  #enqueuingThroughPump(store: PipelineStore): PipelineStore {
    return new Proxy(store, {
      get: (t, key) => {
        if (key === "enqueue") return (...a: Parameters<PipelineStore["enqueue"]>) => this.pump.enqueue(a[0], () => t.enqueue(...a));
        const v: unknown = Reflect.get(t, key);
        return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(t) : v;
      },
    });
  }

  /** Polls, then steps the pump up to `n` times; a simulated crash rebuilds the pump. */
  async steps(n: number): Promise<void> {
    while ((await this.poller.step()).full);
    for (let i = 0; i < n; i++) {
      try {
        const step = await this.pump.step();
        if (step.did === "wait") this.clock.set(Math.max(this.clock.now(), step.until));
        else if (step.did !== "processed") return;
      } catch (e) {
        if (!(e instanceof SimulatedCrashMarker)) throw e;
        this.restart();
        return;
      }
    }
  }

  /** A new leader: the epoch moves on, the old pump takes one step (refused if it commits), then the new one runs. */
  async takeover(): Promise<void> {
    this.pipeline.tables.epoch += 1;
    await this.steps(1);
    this.restart();
  }

  /** An operator replays a message (through `transaction`); refusals are part of the traffic. */
  async replay(msgId: number): Promise<void> {
    await this.#outside(async () => {
      try {
        await new ReplayService({ store: this.pipeline, clock: this.clock }).replay({ msgIds: [msgId] }, "property");
      } catch (e) {
        if (!isMsgxError(e)) throw e;
      }
    });
  }

  /** The history sweep retires flights whose operation day is past retention (`retireFlights`). */
  async sweep(): Promise<void> {
    const history = new HistorySweeper({ store: this.maintenance, clock: this.clock, logger: silentLogger }, { retentionDays: 1, batchSize: 2 });
    await this.#outside(() => history.step());
  }

  /** An operator's `transaction` rewrites a stored flight (a scalar changes, the version moves on). */
  async adminFlight(pick: number): Promise<void> {
    const flights = [...this.pipeline.tables.flights.values()];
    const f = flights[pick % Math.max(1, flights.length)];
    if (f === undefined) return;
    const changed: FlightState = { ...f, stateVersion: f.stateVersion + 1, scalars: { ...f.scalars, STND: `A${pick % 100}` } };
    await this.#outside(() => this.pipeline.transaction((tx) => tx.applyRun({ records: [], bindings: [], flights: [changed], events: [], backfill: [] })));
  }

  /** Runs a writer other than the pump; the broken world then puts the generation back where it was. */
  async #outside(write: () => Promise<unknown>): Promise<void> {
    const before = this.pipeline.tables.generation;
    await write();
    if (this.broken === "outside-writer-keeps-generation") this.pipeline.tables.generation = before;
  }

  /** Polls and pumps until nothing is left to do (every wait waited out). */
  async drain(): Promise<void> {
    this.armed = undefined;
    for (let i = 0; i < 200; i++) {
      while ((await this.poller.step()).full);
      const step = await this.pump.step();
      if (step.did === "processed") continue;
      // Only with an instant breaker: the probe is due at once.
      if (step.did === "outage" && this.options.instantBreaker) continue;
      if (step.did === "wait") {
        this.clock.set(Math.max(this.clock.now(), step.until));
        continue;
      }
      if (step.did === "await-horizon") {
        this.clock.advance(1_000);
        continue;
      }
      return;
    }
    throw new Error("the pipeline never became idle");
  }

  /** What the store holds for a FLID as `loadFlights` gives it (`null`: none). */
  storedFlight(flid: string): FlightState | null {
    return this.pipeline.tables.flights.get(flid) ?? this.pipeline.tables.retired.get(flid) ?? null;
  }

  /** What the store holds for an identity key as `identityOwners` gives it. */
  storedOwner(key: string): IdentityOwner | undefined {
    const t = this.pipeline.tables;
    const msgId = t.identities.get(key);
    if (msgId === undefined) return undefined;
    const boundAt = t.identityBoundAt.get(key);
    return { msgId, contentHash: t.identityHashes.get(key) ?? null, ...(boundAt === undefined ? {} : { boundAt }) };
  }
}

/** The store with the generation check of `commitRun` removed: every run is taken as decided at the current generation. */
function skippingGenerationCheck(store: InMemoryPipelineStore): PipelineStore {
  return new Proxy(store, {
    get: (t, key) => {
      if (key === "commitRun") return (decision: Parameters<PipelineStore["commitRun"]>[0], o: Parameters<PipelineStore["commitRun"]>[1]) => t.commitRun(decision, { ...o, generation: t.tables.generation });
      const v: unknown = Reflect.get(t, key);
      return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(t) : v;
    },
  });
}
