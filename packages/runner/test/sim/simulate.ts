import type { PumpSpeculations } from "@msgx/core";
import { DeliveryStatus, EventHeader, ProcStatus } from "@msgx/core";
import { isTaskRequestError, PENDING_CALLBACK_STATUSES } from "@msgx/tasks";
import { isTerminal } from "@msgx/core/testing";
import { dnldThenFlops } from "../../../../bench/fault/stream.js";
import { Prng, SimScheduler, type FaultKind, type FaultOdds } from "./sim-scheduler.js";
import { SimInvariants, type RefusedSnapshot } from "./sim-invariants.js";
import { taskTraffic } from "./sim-tasks.js";
import { SIM_GAP_GRACE_MS as GAP_GRACE_MS, SimWorld, startSimRunner, type SimRunner } from "./sim-world.js";

/** The simulated traffic's operation day: fixed, so a seed replays the same messages on any day. */
const STREAM_DAY = Date.UTC(2026, 2, 5);

/** The virtual time one seed runs with faults, then heals and drains. */
export const FAULTY_MS = 30_000;
export const DRAIN_MS = 180_000;

export const DEFAULT_ODDS: FaultOdds = { freeze: 0.01, refused: 0.08, lost: 0.01, unknown: 0.01, partial: 0.05 };

export interface SimOptions {
  readonly trace?: boolean;
  /**
   * Hash every trace line into `SimResult.fingerprint` though the lines are not kept (the
   * determinism check compares an untraced run's with a traced one's). A traced run always has it;
   * an untraced run without it builds no trace line at all.
   */
  readonly fingerprint?: boolean;
  /** Fault points the shrinker turned off. */
  readonly masked?: ReadonlySet<number>;
  /** Kinds of fault the shrinker turned off. */
  readonly without?: ReadonlySet<FaultKind>;
  /** At most this many upstream messages (the shrinker's shorter stream). */
  readonly messages?: number;
  /** A mutation planted into the exchange (a removed guard), for the mutation check. */
  readonly mutate?: (world: SimWorld) => void;
}

export interface SimResult {
  readonly seed: number;
  readonly failure: string | undefined;
  /** A hash of the trace's lines, when traced or asked for (`SimOptions.fingerprint`). */
  readonly fingerprint: string | undefined;
  readonly lines: readonly string[] | undefined;
  readonly virtualMs: number;
  readonly faults: number;
  readonly faultPoints: number;
  readonly messages: number;
  readonly ops: number;
  /** The pumps' pipelined steps, over every runner of the seed (`PumpSpeculations`). */
  readonly speculations: PumpSpeculations;
}

const MALFORMED = `<MSG><META><SNDR>AODB</SNDR><SEQN>1</SEQN><DTTM>20260305020000</DTTM><TYPE>FLOP</TYPE><STYP>ESTT</STYP></META><FLOP><FLID>1</FLO`;

/**
 * Runs one seed: two runners (one leads, one stands by) over the world's stores, messages arriving
 * from the upstream, and faults drawn by the seed for `FAULTY_MS` of virtual time; then every fault
 * ends and the exchange must drain. The invariants are checked after every scheduler step; the
 * first broken one ends the run as its failure.
 */
export async function simulate(seed: number, options: SimOptions = {}): Promise<SimResult> {
  const sched = new SimScheduler(seed, DEFAULT_ODDS, { trace: options.trace ?? false, fingerprint: options.fingerprint ?? false, ...(options.masked ? { masked: options.masked } : {}), ...(options.without ? { without: options.without } : {}) });
  const world = new SimWorld(sched);
  options.mutate?.(world);
  // Three streams from the one seed, so the shrinker's shorter stream or fewer faults leave the others as they were.
  const upstream = new Prng(seed ^ 0x5bd1e995);
  const plan = new Prng(seed ^ 0x27d4eb2f);
  const invariants = new SimInvariants(world);
  const timers = sched.timersFor("world");
  const runners = new Map<string, SimRunner>();
  let generation = 0;
  const launch = (slot: string, delay: number) => {
    timers.setTimeout(() => {
      const id = `${slot}.${++generation}`;
      const runner = startSimRunner(world, id);
      runners.set(slot, runner);
      invariants.runners.set(id, runner);
      // A runner that stopped by itself (fenced, lease lost) is restarted as a standby by its supervisor.
      void runner.stopped.then(() => {
        if (runners.get(slot) === runner) {
          sched.kill(id);
          launch(slot, 1_000);
        }
      });
    }, delay);
  };
  launch("a", 0);
  launch("b", plan.int(2_000));

  // The upstream: a snapshot then updates, a few resent (identity dedupe), a few malformed, a few
  // inserts that commit late (below the horizon, within the gap grace).
  const stream = dnldThenFlops({ flights: 3, messages: Math.min(5 + upstream.int(25), options.messages ?? Number.POSITIVE_INFINITY), seed, day: STREAM_DAY });
  // Two snapshots the exchange must refuse whole, each in some seeds, at a place in the stream the
  // seed chooses: an unasked SCHD/RESP (no RQFD is open) and a truncated SCHD/DNLD (RECS 3, 2 FLTR).
  const snapshots = new Prng(seed ^ 0x3c6ef372);
  const refused = new Map<string, RefusedSnapshot>();
  // Sent 10 minutes after the stream's first snapshot: newer than every update, so nothing in them is stale.
  const other = (n: number) => dnldThenFlops({ flights: 3, messages: 1, seed: seed + 7_919 * n, firstSeqn: 200_000 + n, day: STREAM_DAY })[0]!.replace(/<DTTM>\d+<\/DTTM>/, "<DTTM>20260305021000</DTTM>");
  if (snapshots.chance(0.4)) refused.set(other(1).replace("<STYP>DNLD</STYP>", "<STYP>RESP</STYP>"), "unasked RESP");
  if (snapshots.chance(0.4)) refused.set(other(2).replace(/<FLTR>(?:(?!<FLTR>).)*<\/FLTR><\/SCHD>/, "</SCHD>"), "truncated snapshot");
  for (const text of refused.keys()) stream.splice(1 + snapshots.int(stream.length), 0, text);
  const sent: string[] = [];
  let at = 0;
  for (const raw of stream) {
    at += 20 + upstream.int(1_200);
    const roll = upstream.next();
    const special = refused.get(raw);
    const text = special ? raw : roll < 0.08 && sent.length > 0 ? upstream.pick(sent) : roll < 0.12 ? MALFORMED : raw;
    const late = upstream.chance(0.1) ? 100 + upstream.int(1_500) : 0;
    if (!special) sent.push(raw);
    const taken = (id: number) => {
      if (special) invariants.refused.set(id, special);
      return special ? ` (${special})` : "";
    };
    timers.setTimeout(() => {
      if (late === 0) {
        const id = world.mailbox.insert(text);
        sched.log(`upstream inserts ${id}${taken(id)}`);
        return;
      }
      const id = world.mailbox.reserve(text);
      const reservedAt = sched.clock.monotonic();
      sched.log(`upstream reserves ${id}, commits in ${late} ms${taken(id)}`);
      timers.setTimeout(() => {
        world.mailbox.commit(id);
        // Later than the gap grace (the contract's limit), on the monotonic clock the intake times it on.
        const beyond = sched.clock.monotonic() - reservedAt >= GAP_GRACE_MS;
        if (beyond) invariants.beyondGrace.add(id);
        sched.log(`upstream commits ${id}${beyond ? " (beyond the gap grace)" : ""}`);
      }, late);
    }, at);
  }

  // Producers of reliable messages (SPEC §4) call the leading runner's service as `/rm/v1` would:
  // prepare, then confirm (or cancel). A call that does not answer within 2 s is retried (it may have
  // taken effect). A consumer acknowledges what it received.
  const producer = new Prng(seed ^ 0x68e31da4);
  // Every runner started and alive, not only the newest of each slot: a crash may hit a runner that had stopped, before its restart.
  const leader = () => [...invariants.runners.values()].filter((r) => r.reliable && !sched.dead.has(r.id)).sort((x, y) => (y.fence ?? 0) - (x.fence ?? 0))[0];
  const client = (what: string, call: (runner: SimRunner) => Promise<unknown>, then: () => void, tries = 20): void => {
    const host = leader();
    let settled = false;
    const retry = () => {
      if (settled) return;
      settled = true;
      if (tries > 1) timers.setTimeout(() => client(what, call, then, tries - 1), 1_000);
      else sched.log(`client gives up: ${what}`);
    };
    if (!host) return retry();
    timers.setTimeout(retry, 2_000);
    void call(host).then(
      () => {
        if (settled) return;
        settled = true;
        sched.log(`client: ${what} done`);
        then();
      },
      (e: unknown) => {
        // A refusal of the task service is its answer (a cancel too late, a task that moved on): not retried.
        if (!isTaskRequestError(e) || settled) return retry();
        settled = true;
        sched.log(`client: ${what} refused ${e.code}`);
        then();
      },
    );
  };
  const rm = (what: string, call: (host: NonNullable<SimRunner["reliable"]>) => Promise<unknown>, then: () => void) => client(what, (r) => call(r.reliable!), then);
  // What each producer's business transaction did, as its check-back endpoint answers it.
  const business = new Map<string, "committed" | "rolled back">();
  world.checker = {
    // Right, late, unparsable or never (the runner's checker timeout), as the PRNG says.
    check: async (message) => {
      const truth = business.get(message.messageId) === "committed" ? "confirm" : "cancel";
      const roll = producer.next();
      if (roll < 0.6) return truth;
      if (roll < 0.75) return "unknown";
      const wait = roll < 0.9 ? 100 + producer.int(4_000) : world.config.reliable.checkerTimeoutMs;
      await new Promise((resolve) => timers.setTimeout(() => resolve(undefined), wait));
      if (roll < 0.9) return truth;
      throw new Error(`checker did not answer in ${wait} ms (simulated)`);
    },
  };
  const reliableMessages = producer.int(5);
  for (let k = 1; k <= reliableMessages; k++) {
    const messageId = `m-${k}`;
    // The producer confirms, cancels, or never says (it crashed): then only the check-back decides.
    const roll = producer.next();
    const committed = roll < 0.7 || (roll >= 0.8 && producer.chance(0.5));
    business.set(messageId, committed ? "committed" : "rolled back");
    if (!committed) invariants.rolledBack.add(messageId);
    const decideAfter = 100 + producer.int(3_000);
    timers.setTimeout(
      () =>
        rm(`prepare ${messageId}`, (h) => h.service.saveWaitingConfirm({ messageId, consumerQueue: "orders", body: `order ${k}` }), () =>
          timers.setTimeout(() => {
            if (roll < 0.7) rm(`confirm ${messageId}`, (h) => h.service.confirmAndSend(messageId), () => invariants.confirmed.add(messageId));
            else if (roll < 0.8) rm(`cancel ${messageId}`, (h) => h.service.cancel(messageId), () => undefined);
            else sched.log(`producer of ${messageId} never confirms (business ${committed ? "committed" : "rolled back"})`);
          }, decideAfter),
        ),
      producer.int(FAULTY_MS),
    );
  }
  const acked = new Set<string>();
  timers.setInterval(() => {
    for (const r of world.broker.records("rmq.orders")) {
      if (acked.has(r.key)) continue;
      acked.add(r.key);
      rm(`acknowledge ${r.key}`, (h) => h.service.acknowledge(r.key), () => undefined);
    }
  }, 2_000);

  const tasks = taskTraffic(world, sched, timers, (what, call, then) => client(what, (r) => call(r.tasks!), then), seed, sched.start + FAULTY_MS);

  // The faults of the run, at instants drawn by the seed.
  const deps = ["pg", "mysql", "kafka"];
  for (let i = 0; i < 6; i++) {
    const when = plan.int(FAULTY_MS);
    const kind = plan.int(4);
    const length = plan.chance(0.5) ? 100 + plan.int(2_000) : 2_000 + plan.int(20_000);
    const dep = plan.pick(deps);
    const slot = plan.pick(["a", "b"]);
    timers.setTimeout(() => {
      switch (kind) {
        case 0:
          if (sched.fault("outage", 1, `${dep} down for ${length} ms`)) sched.outages.set(dep, sched.clock.monotonic() + length);
          break;
        case 1: {
          const runner = runners.get(slot);
          // A runner that stopped by itself is being restarted already.
          if (runner && !sched.dead.has(runner.id) && sched.fault("crash", 1, `crash of ${runner.id}`)) {
            runners.delete(slot);
            sched.kill(runner.id);
            launch(slot, plan.int(3_000));
          }
          break;
        }
        case 2: {
          const runner = runners.get(slot);
          if (runner && sched.fault("freeze", 1, `${runner.id} frozen for ${length} ms`)) sched.freeze(runner.id, length);
          break;
        }
        case 3: {
          // A forward step of the wall clock (NTP, a VM resumed): dates and the lease store's expiry
          // move, elapsed times (timers, the gap grace, a leader's window) do not.
          const jump = 500 + (length % 8_000);
          if (sched.fault("clock-jump", 1, `clock jumps ${jump} ms`)) sched.clock.jump(jump);
          break;
        }
      }
    }, when);
  }

  // Up to two NTP steps back of the runners' hosts' wall clock, from a stream of their own (the plan above stays as it was);
  // true time, the timers and the monotonic clocks go on.
  const steps = new Prng(seed ^ 0x9e3779b9);
  for (let i = 0; i < 2; i++) {
    if (!steps.chance(0.5)) continue;
    const back = 500 + steps.int(8_000);
    timers.setTimeout(() => {
      if (sched.fault("clock-back", 1, `runners' wall clock steps back ${back} ms`)) sched.wallOffset -= back;
    }, steps.int(FAULTY_MS));
  }

  let failure: string | undefined;
  const end = sched.start + FAULTY_MS;
  try {
    while (await sched.step(end)) invariants.check();
    // Healthy from here: no outage, no frozen process, no more faults; everything must drain.
    sched.odds = { freeze: 0, refused: 0, lost: 0, unknown: 0, partial: 0 };
    sched.outages.clear();
    sched.frozen.clear();
    sched.log("faults end");
    const deadline = end + DRAIN_MS;
    while (!(tasks.done() && drained(world)) && (await sched.step(deadline))) invariants.check();
    invariants.check();
    invariants.final();
  } catch (e) {
    failure = e instanceof Error ? e.message : String(e);
    sched.log(`FAILED: ${failure}`);
  }
  sched.close();
  return {
    seed,
    failure,
    fingerprint: sched.fingerprint,
    lines: sched.lines,
    virtualMs: sched.clock.monotonic() - sched.start,
    faults: sched.faultsInjected,
    faultPoints: sched.faultPoints,
    messages: world.mailbox.rows.size,
    ops: sched.ops,
    speculations: world.speculations(),
  };
}

/** Every committed mailbox row processed and written back, every event sent. */
function drained(world: SimWorld): boolean {
  const t = world.store.tables;
  for (const [id, row] of world.mailbox.rows) {
    if (!row.visible) continue;
    const r = t.records.get(id);
    if (!r || !isTerminal(r.status) || row.processedAt === null) return false;
  }
  for (const task of world.tasks.tables.tasks.values()) if (PENDING_CALLBACK_STATUSES.includes(task.status)) return false;
  for (const e of t.events) if (e.status !== DeliveryStatus.SENT) return false;
  for (const r of t.records.values()) if (r.status === ProcStatus.PENDING) return false;
  return true;
}

export { EventHeader };
