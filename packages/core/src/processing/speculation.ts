import type { FlightState } from "../model/flight-state.js";
import { isTerminal, ProcStatus, type ProcRecord } from "../model/proc-record.js";
import type { MemoryView } from "./leader-memory.js";
import type { PreparedRun } from "./prepare-run.js";
import type { LoadedState } from "./run-context.js";
import type { RunDecision } from "./run-decision.js";
import { takeReady } from "./take-ready.js";

/**
 * A pipelined step (issue 32, item 4): the run behind run N — "N+1" — read, decoded and decided
 * from the state N will leave, while N's `commitRun` is on its way. Nothing of it is written: the
 * pump's next step takes it, and commits its decision only when {@link speculationVerdict} says
 * nothing it was made from has changed; otherwise the decision is made again (the read may still
 * serve). `commitRun`'s generation, head and binding checks stay the final guard.
 */
export class Speculation {
  constructor(
    /** Run N's decision, as handed to `commitRun`: the speculation assumed it commits. */
    readonly base: RunDecision,
    /** The generation of the leader's memory N was decided at. */
    readonly generation: number,
    /** The records of run N+1, the objects the pump's list of unfinished records held. */
    readonly run: readonly ProcRecord[],
    /** When the speculation started: its decision is stamped with it. */
    readonly now: number,
    /** The read and, where it could be made, the decision; undefined when anything failed (the step meets it again itself). */
    readonly result: Promise<SpeculatedRun | undefined>,
  ) {}
}

/** What a speculation made of run N+1. */
export interface SpeculatedRun {
  readonly prepared: PreparedRun;
  /**
   * Decided at the speculation's `now`, without traces (`withTraces` is applied when it is used),
   * and the flights it was decided from (`CommitRunOptions.stored`). Absent when the run takes
   * the slow path or the memory missed one of its flights.
   */
  readonly decision?: { readonly decision: RunDecision; readonly stored: ReadonlyMap<string, FlightState> };
}

/** What the pump's next step sees when it meets a speculation. */
export interface SpeculationCheck {
  /** The ready run the step would take now (`takeReady`). */
  readonly run: readonly ProcRecord[];
  /** The decision the pump committed last with `commitRun`, null after a drop or a transaction. */
  readonly lastCommitted: RunDecision | null;
  readonly generation: number | undefined;
  readonly now: number;
  readonly maxAgeMs: number;
}

/** Commit the speculated decision; reuse only the read (decide again); or do the step as if there were none. */
export type SpeculationVerdict = "decision" | "read" | "discard";

/**
 * Pure: what the next step may take of a settled speculation. Its checks:
 * - same run: the run the step takes now is the speculation's, the same record objects (so the
 *   read is the step's read, and every step commits the run a pump that does not pipeline would:
 *   a run that grew meanwhile is read again whole);
 * - base committed: N is the run the pump committed last, and nothing dropped the memory since;
 * - same generation: the memory is still at N's generation (implied by the base check while only
 *   a drop moves it; kept so a future path that reloads cannot slip past);
 * - fresh: at most `maxAgeMs` old, so its records' times stay close to the commit as a step's do.
 *
 * The guard-removal tests (pipelined-steps.property.unit.spec.ts) leave the base and freshness
 * checks out from outside: they hand this function a `check` that passes them.
 */
export function speculationVerdict(spec: Speculation, settled: SpeculatedRun | undefined, check: SpeculationCheck): SpeculationVerdict {
  if (settled === undefined || !sameRecords(check.run, spec.run)) return "discard";
  const decided =
    settled.decision !== undefined &&
    check.lastCommitted === spec.base &&
    check.generation === spec.generation &&
    check.now - spec.now <= check.maxAgeMs;
  return decided ? "decision" : "read";
}

/**
 * Pure: run N+1 from the pump's unfinished records at `now`, or undefined when there is none to
 * speculate on. `candidates` are the records from the head, run N's first; N must end every one
 * of its records (so no FAILED head stays behind it: the head rule and retry waits are not
 * touched), and the head behind it must be PENDING and inside the horizon, so any later step
 * processes it too.
 */
export function runBehind(candidates: readonly ProcRecord[], base: RunDecision, now: number, horizon: number): ProcRecord[] | undefined {
  const n = base.records.length;
  if (n === 0 || !base.records.every((r, i) => isTerminal(r.status) && candidates[i]?.msgId === r.msgId)) return undefined;
  const rest = candidates.slice(n);
  const head = rest[0];
  if (head === undefined || head.status !== ProcStatus.PENDING || head.msgId > horizon) return undefined;
  return takeReady(rest, now, horizon);
}

/**
 * Pure: the state run N leaves for a run needing `needs`, as the memory will give it once N
 * committed (`LeaderMemory.committed`): a read of the memory with N's flights and N's new bindings
 * (bound at `baseNow`, N's time) laid over it. Undefined when a flight the run needs is neither
 * held nor written by N.
 */
export function stateAfter(view: MemoryView, base: RunDecision, baseNow: number, needs: Pick<PreparedRun, "flightIds" | "identityKeys">): LoadedState | undefined {
  const written = new Set(base.flights.map((f) => f.flid));
  if (view.missing.some((f) => !written.has(f))) return undefined;
  const [flightIds, identityKeys] = [new Set(needs.flightIds), new Set(needs.identityKeys)];
  const flights = new Map(view.flights);
  for (const f of base.flights) if (flightIds.has(f.flid)) flights.set(f.flid, f);
  const owners = new Map(view.owners);
  for (const b of base.bindings) {
    if (!identityKeys.has(b.identityKey) || owners.get(b.identityKey)?.msgId === b.msgId) continue;
    owners.set(b.identityKey, { msgId: b.msgId, contentHash: b.contentHash ?? null, boundAt: baseNow });
  }
  return { identityOwners: owners, flights };
}

/** True when both runs hold the same record objects in the same order. */
function sameRecords(a: readonly ProcRecord[], b: readonly ProcRecord[]): boolean {
  return a.length === b.length && a.every((r, i) => b[i] === r);
}
