import { setMaxListeners } from "node:events";
import { PgLeadership } from "@msgx/adapters-pg";
import { silentLogger, type LeaseStore, type Logger, type PumpSpeculations } from "@msgx/core";
import type { ReliableMessage, ReliableMessageChecker } from "@msgx/reliable";
import { InMemoryReliableMessageStore } from "@msgx/reliable/fakes";
import { InMemoryTaskStore } from "@msgx/tasks/fakes";
import {
  InMemoryBroker,
  InMemoryFlightReader,
  InMemoryLineageReader,
  InMemoryMailbox,
  InMemoryMaintenanceStore,
  InMemoryOutboundMailbox,
  InMemoryOutboxStore,
  InMemoryPipelineStore,
  InMemoryReferenceReader,
  InMemoryRequestStore,
  InMemoryRunnerPresence,
  InMemoryStatusReader,
  InMemoryThroughputReader,
} from "@msgx/core/fakes";
import type { AppParts } from "../../src/app/app-parts.js";
import { createExchangeRouter } from "../../src/app/exchange-router.js";
import type { MsgxConfig } from "../../src/config/config-schema.js";
import { loadConfig } from "../../src/config/load-config.js";
import { driveRouter } from "../../src/loops/router-loops.js";
import type { ReliableHost } from "../../src/reliable/reliable-host.js";
import type { TaskApi } from "../../src/tasks/task-api.js";
import { TASK_RELAY_STEP } from "../../src/tasks/task-steps.js";
import { SimLeaseStore } from "./sim-lease.js";
import type { SimScheduler } from "./sim-scheduler.js";

/** How long an open mailbox insert holds the horizon in the simulation (the contract the order invariant checks against). */
export const SIM_GAP_GRACE_MS = 2_000;

/** The lease of the simulated runners: 3 s, renewed every second. */
export const SIM_LEASE_TTL_MS = 3_000;

/** The configuration every simulated runner runs with (the runner's own defaults, shorter waits); `overrides` over it. */
export function simConfig(overrides: Readonly<Record<string, string>> = {}): MsgxConfig {
  return loadConfig({
    env: {},
    overrides: {
      "pipeline.gapGraceMs": String(SIM_GAP_GRACE_MS),
      // Runs of at most three: a seed's few messages still queue behind a committing run, so the
      // pump's pipelined steps (a speculation on the run behind) are taken, refused and redone.
      "pipeline.maxRun": "3",
      "pg.leaseTtlMs": String(SIM_LEASE_TTL_MS),
      "jobs.backfillSweepMs": "5000",
      "reliable.createTopics": "false",
      // Check-back within the faulty window: a message unconfirmed for 2 s is asked about each second.
      "reliable.checkAfterMs": "2000",
      "reliable.checkIntervalMs": "1000",
      "reliable.jobIntervalMs": "1000",
      // The task service as the runner hosts it, dispatched by its API (no executing system over HTTP);
      // an owner silent for 4 s has its event sent again.
      "tasks.enabled": "true",
      "tasks.createTopics": "false",
      "tasks.watchdog.pendingCallbackAlertMs": "4000",
      "tasks.watchdog.pendingCallbackRetryMs": "4000",
      // The dispatch and watchdog steps every 2 s (each run is a port call of every seed's every step).
      "tasks.jobIntervalMs": "2000",
      ...overrides,
    },
  });
}

/** Read once: every seed runs with the same configuration (unless a mutation changes it). */
const SIM_CONFIG = simConfig();

/** Methods of the fakes that return a promise without being `async` functions: calls to a dependency too. */
const PROMISING = ["transaction", "commitRun", "archiveTerminal", "registerMissingBackfill", "update"];
/** The calls of each fake's class (`calls`), found once. */
const callsOf = new WeakMap<object, readonly string[]>();
/** Every async method of a fake, and the promising ones, is a call to its dependency (one pending operation each). */
const calls = (fake: object): readonly string[] => {
  const known = callsOf.get(Object.getPrototypeOf(fake) as object);
  if (known) return known;
  const names = new Set<string>();
  for (let proto = Object.getPrototypeOf(fake) as object | null; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto) as object | null) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      const value = Object.getOwnPropertyDescriptor(proto, name)?.value as unknown;
      if (typeof value === "function" && (value.constructor.name === "AsyncFunction" || PROMISING.includes(name))) names.add(name);
    }
  }
  const found = [...names].sort();
  callsOf.set(Object.getPrototypeOf(fake) as object, found);
  return found;
};

/**
 * The databases and the broker of the simulated exchange: what survives a crash. PostgreSQL state
 * (pipeline, outbox, reliable, tasks, maintenance, requests, the lease) shares one in-memory
 * database; the MySQL mailbox and Kafka are fakes of their own. A lease grant bumps the pipeline's
 * fencing epoch in the same step, as the PostgreSQL lease does under the pipeline lock.
 */
export class SimWorld {
  readonly store: InMemoryPipelineStore;
  readonly mailbox: InMemoryMailbox;
  readonly broker = new InMemoryBroker();
  readonly outbox: InMemoryOutboxStore;
  readonly reliable: InMemoryReliableMessageStore;
  readonly tasks: InMemoryTaskStore;
  readonly maintenance: InMemoryMaintenanceStore;
  readonly requests: InMemoryRequestStore;
  readonly outbound: InMemoryOutboundMailbox;
  readonly leaseRow: SimLeaseStore;
  lease: LeaseStore;
  config = SIM_CONFIG;
  /** The producers' check-back endpoint, one for every queue (its answers are the world's to script). */
  checker: { check(message: ReliableMessage): ReturnType<ReliableMessageChecker> } = { check: async () => "unknown" };
  /**
   * Hooks of the mutation check (mutations.ts), each removing one guard from outside the real code:
   * `wrapPort` wraps a runner's port as its code sees it (`name`: the `AppParts` member), and
   * `ignoreLeaseWindow` makes the runner's steps start whatever its lease keeper says,
   * `unfencedProducer` gives the runners the broker's plain port, and `wrapChecker` wraps the
   * check-back endpoint as the runner sees it.
   */
  /** Told whenever a runner's loop is let start a step (the lease keeper's window said yes). */
  onStepStart: ((runner: string, fence: number) => void) | undefined;
  /** The routers of every runner started, for their pumps' speculation counts. */
  readonly routers: { readonly speculations: PumpSpeculations }[] = [];

  /** The pipelined steps of every runner's pump so far, added up. */
  speculations(): PumpSpeculations {
    const sum = { started: 0, decided: 0, read: 0, discarded: 0 };
    for (const r of this.routers) for (const k of Object.keys(sum) as (keyof PumpSpeculations)[]) sum[k] += r.speculations[k];
    return sum;
  }
  readonly mutations: { wrapPort?: <T extends object>(name: string, port: T) => T; ignoreLeaseWindow?: boolean; unfencedProducer?: boolean; wrapChecker?: (checker: ReliableMessageChecker) => ReliableMessageChecker } = {};

  constructor(readonly sched: SimScheduler) {
    const clock = sched.clock;
    this.store = new InMemoryPipelineStore(clock);
    this.mailbox = new InMemoryMailbox(clock);
    this.outbox = new InMemoryOutboxStore(this.store);
    this.reliable = new InMemoryReliableMessageStore(clock, this.store);
    this.tasks = new InMemoryTaskStore(clock, this.store);
    this.maintenance = new InMemoryMaintenanceStore(this.store, clock);
    this.requests = new InMemoryRequestStore(this.store);
    this.outbound = new InMemoryOutboundMailbox(clock);
    this.leaseRow = new SimLeaseStore(clock);
    const row = this.leaseRow;
    const tables = this.store.tables;
    this.lease = {
      tryAcquire: async (holder, ttlMs) => {
        const grant = await row.tryAcquire(holder, ttlMs);
        if (grant) tables.epoch = grant.epoch;
        return grant;
      },
      renew: (holder, epoch, ttlMs) => row.renew(holder, epoch, ttlMs),
      release: (holder, epoch) => row.release(holder, epoch),
    };
  }

  /** The parts one runner sees: every port call goes through the scheduler as `owner`. */
  parts(owner: string, leadership: { fence: number; lost: Promise<string>; leading: () => boolean; confirm: () => Promise<boolean> }): AppParts {
    const s = this.sched;
    const w = <T extends object>(name: string, port: T): T => (this.mutations.wrapPort ? this.mutations.wrapPort(name, port) : port);
    return {
      kind: "real",
      store: w("store", s.port(this.store, "pg", owner, calls(this.store))),
      outbox: w("outbox", s.port(this.outbox, "pg", owner, calls(this.outbox))),
      flights: new InMemoryFlightReader(this.store),
      lineage: new InMemoryLineageReader(this.store),
      status: new InMemoryStatusReader(this.store),
      throughput: new InMemoryThroughputReader(this.store),
      presence: new InMemoryRunnerPresence(s.clock),
      requests: w("requests", s.port(this.requests, "pg", owner, calls(this.requests))),
      references: new InMemoryReferenceReader(this.store.tables.requestTables),
      maintenance: w("maintenance", s.port(this.maintenance, "pg", owner, calls(this.maintenance))),
      reliable: w("reliable", s.port(this.reliable, "pg", owner, calls(this.reliable))),
      tasks: w("tasks", s.port(this.tasks, "pg", owner, calls(this.tasks))),
      mailbox: w("mailbox", s.port(this.mailbox, "mysql", owner, calls(this.mailbox))),
      outbound: w("outbound", s.port(this.outbound, "mysql", owner, calls(this.outbound))),
      // Fenced as the runner's Kafka port is (ProducerFencing): one transactional id for every leader.
      delivery: w("delivery", s.port(this.mutations.unfencedProducer ? this.broker : this.broker.producer({ transactionalId: "msgx:schd", confirm: leadership.confirm }), "kafka", owner, ["send"])),
      checks: [],
      reliableCheckers: () => {
        const checker = s.port(this.checker, "checker", owner, ["check"]);
        const ask: ReliableMessageChecker = (message) => checker.check(message);
        return this.mutations.wrapChecker ? this.mutations.wrapChecker(ask) : ask;
      },
      fence: leadership.fence,
      leadershipLost: leadership.lost,
      leading: leadership.leading,
      close: async () => undefined,
    };
  }
}

/** A runner of the simulation: what `msgx run` composes, over the world's ports and the virtual timers. */
export interface SimRunner {
  readonly id: string;
  /** Set once it leads. */
  fence: number | undefined;
  /** The reliable-message service it hosts, once it leads (what `/rm/v1` calls). */
  reliable: ReliableHost | undefined;
  /** The task service's API it hosts, once it leads (what `/task/v1` calls). */
  tasks: TaskApi | undefined;
  /** Resolves when the runner stopped by itself (fenced, leadership lost). */
  readonly stopped: Promise<string>;
}

/**
 * Starts runner `id` as the runner does (`buildParts` → `createExchangeRouter` → `driveRouter`):
 * waits for the lease with the lease keeper (`PgLeadership`), then drives the router's steps with
 * its loops. Only the adapters (the fakes) and the timers (virtual) differ.
 */
export function startSimRunner(world: SimWorld, id: string, logger: Logger = silentLogger): SimRunner {
  const s = world.sched;
  const timers = s.timersFor(id);
  let stop!: (why: string) => void;
  const runner: SimRunner = { id, fence: undefined, reliable: undefined, tasks: undefined, stopped: new Promise<string>((r) => (stop = r)) };
  void (async () => {
    const leadership = new PgLeadership({ store: s.port(world.lease, "pg", id, ["tryAcquire", "renew", "release"]), holder: id, ttlMs: world.config.pg.leaseTtlMs, clock: s.clock, timers });
    const fence = await leadership.acquireWhenFree({ pollMs: 1_000 });
    runner.fence = fence;
    s.log(`${id} leads with epoch ${fence}`);
    const trustForever = world.mutations.ignoreLeaseWindow === true;
    const lost = new Promise<string>((resolve) => void (trustForever || leadership.watch(resolve)));
    const parts = world.parts(id, { fence, lost, leading: trustForever ? () => true : () => leadership.mayLead(), confirm: () => leadership.confirm() });
    // The runner's clock is its host's wall clock, which an NTP step may move back.
    const composed = createExchangeRouter(parts, world.config, logger, s.wall);
    world.routers.push(composed.router);
    const controller = new AbortController();
    // Every loop waits on this one signal, as in `startPipeline`.
    setMaxListeners(64, controller.signal);
    const mayStart = () => {
      const yes = parts.leading!();
      if (yes) world.onStepStart?.(id, fence);
      return yes;
    };
    const loops = driveRouter(composed.router, { logger, signal: controller.signal, mayStart, timers });
    runner.reliable = composed.reliable;
    // As `/task/v1` is wired in `startPipeline`: a call that wrote a task event wakes the relay.
    runner.tasks = composed.tasks?.api(() => loops.wake([TASK_RELAY_STEP]));
    const why = await composed.router.stopped;
    // The runner exits (a supervisor restarts it as a standby); it starts nothing more.
    controller.abort();
    s.log(`${id} stopped: ${why}`);
    stop(why);
  })().catch((e: unknown) => {
    // `msgx run` exits when it cannot start (here: the lease keeper's acquire failed other than by an outage).
    const why = `exited: ${e instanceof Error ? e.message : String(e)}`;
    s.log(`${id} ${why}`);
    stop(why);
  });
  return runner;
}
