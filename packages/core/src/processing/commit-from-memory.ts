import type { FlightState } from "../model/flight-state.js";
import type { TraceSpan } from "../runtime/tracer.js";
import { decideRun } from "./decide-run.js";
import type { LeaderMemory } from "./leader-memory.js";
import type { PipelineStore } from "./pipeline-store.js";
import type { PreparedRun } from "./prepare-run.js";
import type { RunContext } from "./run-context.js";
import type { IdentityOwner, RunDecision } from "./run-decision.js";
import type { ReusedSpeculation } from "./speculation-slot.js";
import { StaleRunError } from "./stale-run-error.js";
import { withTraces } from "./with-traces.js";

/** A decision the step did not make itself, and the time it was made at (`RunContext.now`). */
export type Premade = NonNullable<ReusedSpeculation["premade"]>;

/** The parts of the pump a run committed from the leader's memory works with. */
export interface CommitFromMemoryDeps {
  readonly store: PipelineStore;
  readonly memory: LeaderMemory;
  /** The leadership epoch `commitRun` is fenced with, when leadership is in use. */
  readonly fence: { readonly fence?: number };
  /** Called right before each `commitRun` is sent (the pump's `pump.before-commit` failpoint). */
  readonly beforeCommit: () => void;
  /** The run's `commitRun` was just sent, decided at `decidedAt` and `generation`: pipelined steps speculate behind it. */
  readonly sent: (decision: RunDecision, decidedAt: number, generation: number) => void;
  /** The store may now hold what the pump's memory does not: everything the pump remembers is dropped. */
  readonly forget: () => void;
  /** The run committed at `generation` and its events were given `eventIds` (as `commitRun` answered). */
  readonly committed: (decision: RunDecision, eventIds: readonly number[], generation: number) => void;
}

/** Stale answers of `commitRun` a run takes before it commits through a transaction instead. */
const MAX_STALE_ANSWERS = 2;
/** Reads of `loadRunState` a run makes before it commits through a transaction instead. */
const MAX_LOADS = 4;

/**
 * The fast path (issue 32): decides the run from the leader's memory, loading only what it
 * misses (`loadRunState`), and commits it with `commitRun` in one round trip. An identity key
 * the memory does not hold is taken as unbound: every outcome that reads an owner binds the key
 * when it finds none (`identityVerdict`, `decideOne`), and `commitRun` checks each new binding
 * in the store. A stale answer loads what it names (bound keys) or everything again (the generation
 * moved on) and decides again; after {@link MAX_STALE_ANSWERS} of them, or {@link MAX_LOADS} loads,
 * the run takes the slow path (undefined). A `premade` decision (a speculation's, at the memory's
 * generation) is sent first as it is. The committed decision is applied to the memory before it is
 * returned.
 */
export async function commitFromMemory(
  deps: CommitFromMemoryDeps,
  part: PreparedRun,
  spans: ReadonlyMap<number, TraceSpan>,
  ctx: RunContext,
  premade?: Premade,
): Promise<RunDecision | undefined> {
  const { store, memory } = deps;
  // What this run loaded itself, at the memory's generation: used even where the memory's
  // bounds (or the dedupe window) would not keep it.
  let owners = new Map<string, IdentityOwner>();
  let flights = new Map<string, FlightState | null>();
  let keys: readonly string[] = [];
  let loads = 0;
  let stale = 0;
  let made = premade;
  for (;;) {
    const generation = memory.generation;
    const missing = made === undefined ? memory.missingFlights(part.flightIds).filter((f) => !flights.has(f)) : [];
    if (generation === undefined || missing.length > 0 || keys.length > 0) {
      made = undefined;
      if (++loads > MAX_LOADS) return undefined;
      const loaded = await store.loadRunState(keys, missing);
      if (loaded.generation !== memory.generation) {
        owners = new Map();
        flights = new Map();
      }
      memory.adopt(loaded, missing, ctx.now);
      for (const [k, o] of loaded.owners) owners.set(k, o);
      for (const f of missing) flights.set(f, loaded.flights.get(f) ?? null);
      keys = [];
      continue;
    }
    const decidedAt = made?.now ?? ctx.now;
    const { decision: undecorated, stored } = made ?? decideFromMemory(memory, part, owners, flights, ctx);
    const decision = withTraces(undecorated, spans);
    made = undefined;
    deps.beforeCommit();
    // Sent before the speculation starts, and a throw of the store's becomes the rejection caught below.
    const committing = (async () => store.commitRun(decision, { generation, stored, ...deps.fence }))();
    deps.sent(decision, decidedAt, generation);
    let eventIds: readonly number[];
    try {
      eventIds = await committing;
    } catch (e) {
      // The run itself came from a wrong guess (`KnownUnfinished`): the step takes it again from the store.
      if (e instanceof StaleRunError && e.notAtHead) throw e;
      const retry = e instanceof StaleRunError && ++stale <= MAX_STALE_ANSWERS;
      // Bound keys name what to load; anything else (the generation moved on, an outage, an
      // unknown outcome, a new leader, a refusal) may have left the store holding what the memory does not.
      if (retry && e.boundKeys.length > 0) keys = e.boundKeys;
      else deps.forget();
      if (retry) continue;
      if (e instanceof StaleRunError) return undefined;
      throw e;
    }
    deps.committed(decision, eventIds, generation);
    memory.committed(decision, decidedAt);
    return decision;
  }
}

/**
 * Decides a run from the memory and what the run loaded itself (`owners`, `flights`: used even
 * where the memory would not keep them); `stored`: the flights it was decided from (`CommitRunOptions.stored`).
 */
function decideFromMemory(
  memory: LeaderMemory,
  part: PreparedRun,
  owners: ReadonlyMap<string, IdentityOwner>,
  flights: ReadonlyMap<string, FlightState | null>,
  ctx: RunContext,
): Omit<Premade, "now"> {
  const held = memory.flights(part.flightIds);
  for (const [f, flight] of flights) if (flight !== null) held.set(f, flight);
  const identityOwners = new Map([...memory.owners(part.identityKeys, ctx.now), ...owners]);
  return { decision: decideRun(part, { identityOwners, flights: held }, ctx), stored: held };
}
