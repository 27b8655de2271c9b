import type { FlightState } from "../model/flight-state.js";
import type { ProcRecord } from "../model/proc-record.js";
import type { Clock } from "../runtime/clock.js";
import type { KnownUnfinished } from "./known-unfinished.js";
import type { LeaderMemory } from "./leader-memory.js";
import type { PreparedRun } from "./prepare-run.js";
import type { LoadedState } from "./run-context.js";
import type { RunDecision } from "./run-decision.js";
import { runBehind, Speculation, speculationVerdict, stateAfter, type SpeculatedRun } from "./speculation.js";

/**
 * What became of a pump's speculations (`PumpOptions.pipelined`): the decision committed as made,
 * only the read used (the decision made again), or nothing used. One started last may still wait
 * for the next step, counted in none of them.
 */
export interface PumpSpeculations {
  readonly started: number;
  readonly decided: number;
  readonly read: number;
  readonly discarded: number;
}

/** What a step takes of a speculation: the run and its read, and the decision with the time it was made at. */
export interface ReusedSpeculation {
  readonly run: readonly ProcRecord[];
  readonly prepared: PreparedRun;
  /** `stored`: the flights it was decided from, as the store holds them once the run before committed (`CommitRunOptions.stored`). */
  readonly premade?: { readonly decision: RunDecision; readonly stored: ReadonlyMap<string, FlightState>; readonly now: number };
}

/** The parts of the pump a speculation works with. */
export interface SpeculationSlotDeps {
  readonly clock: Clock;
  readonly horizon: () => number;
  readonly memory: LeaderMemory;
  /** The pump's list of unfinished records: the run behind is taken from it, never from the store. */
  readonly known: KnownUnfinished;
  readonly maxRun: number;
  readonly maxAgeMs: number;
  /** Reads and decodes a run as the step does. */
  readonly prepare: (run: readonly ProcRecord[], signal?: AbortSignal) => Promise<PreparedRun>;
  /** True for a run the step would decide from memory. */
  readonly fastPath: (run: PreparedRun) => boolean;
  /** Decides a run as the step does, from `state`, at `now`. */
  readonly decide: (run: PreparedRun, state: LoadedState, now: number) => RunDecision;
}

/**
 * The pump's one speculation (pipelined steps, see `Speculation`): started while a run's
 * `commitRun` is on its way, taken by the next step, which commits its decision only on
 * {@link speculationVerdict}'s word.
 */
export class SpeculationSlot {
  readonly #deps: SpeculationSlotDeps;
  #held: Speculation | null = null;
  /** The work of the last speculation started, perhaps still on its way; it never fails. */
  #working: Promise<unknown> = Promise.resolve();
  readonly #counts = { started: 0, decided: 0, read: 0 };

  constructor(deps: SpeculationSlotDeps) {
    this.#deps = deps;
  }

  get counts(): PumpSpeculations {
    const { started, decided, read } = this.#counts;
    return { started, decided, read, discarded: started - decided - read - (this.#held === null ? 0 : 1) };
  }

  /** Resolves once no speculation reads any more: a stopping pump waits for it. */
  settled(): Promise<unknown> {
    return this.#working;
  }

  /** The speculation for this step, if any; the slot is empty after (a later step may not use it). */
  take(): Speculation | null {
    const held = this.#held;
    this.#held = null;
    return held;
  }

  /**
   * Starts the speculation on the run behind `base` (decided at `baseNow`, at the memory's
   * `generation`), unless one is held already: only the first commit a step sends starts one.
   */
  start(base: RunDecision, baseNow: number, generation: number, signal?: AbortSignal): void {
    if (this.#held !== null) return;
    const now = this.#deps.clock.now();
    const candidates = this.#deps.known.candidates(this.#deps.maxRun + base.records.length, now);
    const run = candidates === undefined ? undefined : runBehind(candidates, base, now, this.#deps.horizon());
    if (run === undefined) return;
    const result = this.#work(run, base, baseNow, generation, now, signal);
    this.#held = new Speculation(base, generation, run, now, result);
    this.#working = result;
    this.#counts.started += 1;
  }

  /** What the step that would take `ready` at `now` may use of `spec`, `lastCommitted` being the pump's last commit. */
  async reuse(spec: Speculation, ready: readonly ProcRecord[], now: number, lastCommitted: RunDecision | null): Promise<ReusedSpeculation | undefined> {
    const settled = await spec.result;
    const { memory, maxAgeMs } = this.#deps;
    const verdict = speculationVerdict(spec, settled, { run: ready, lastCommitted, generation: memory.generation, now, maxAgeMs });
    if (verdict === "discard" || settled === undefined) return undefined;
    this.#counts[verdict === "decision" ? "decided" : "read"] += 1;
    const used = { run: spec.run, prepared: settled.prepared };
    return verdict === "decision" && settled.decision !== undefined ? { ...used, premade: { ...settled.decision, now: spec.now } } : used;
  }

  /**
   * Reads, decodes and, from the memory with `base` laid over it (nothing of the memory changes),
   * decides `run` at `now`. Any failure gives undefined: the step that would use it meets the
   * failure itself.
   */
  async #work(run: readonly ProcRecord[], base: RunDecision, baseNow: number, generation: number, now: number, signal?: AbortSignal): Promise<SpeculatedRun | undefined> {
    const { memory, prepare, fastPath, decide } = this.#deps;
    try {
      const prepared = await prepare(run, signal);
      // The memory is read only now, after the read: it must still be the one N was decided from (or N's own result).
      if (!fastPath(prepared) || memory.generation !== generation) return { prepared };
      const state = stateAfter(memory.peek(prepared.flightIds, prepared.identityKeys, now), base, baseNow, prepared);
      return state === undefined ? { prepared } : { prepared, decision: { decision: decide(prepared, state, now), stored: state.flights } };
    } catch {
      return undefined;
    }
  }
}
