import type { FlightState } from "../model/flight-state.js";
import { airportDayBefore } from "../model/airport-day.js";
import { DEFAULT_IDENTITY_WINDOW_MS } from "../model/identity.js";
import type { LoadedRunState } from "./pipeline-store.js";
import type { IdentityOwner, RunDecision } from "./run-decision.js";

/** The bounds of the leader's memory (`pipeline.memory*` in the runner's configuration). */
export interface LeaderMemoryOptions {
  /**
   * The open operation days: flights whose operation day is at most this many days before the
   * operation day `now` falls in (and every later day) are held; an earlier day's flight is read with the
   * run that needs it and not kept. Messages for closed days are rare, so they need no memory.
   */
  readonly openDays: number;
  /** The airport's fixed offset from UTC in minutes, to find its local today. */
  readonly airportUtcOffsetMinutes: number;
  /** Minutes after local midnight the operation day starts (`airport.dayStartOffsetMinutes`): today is the operation day `now` falls in; 0 when absent. */
  readonly dayStartOffsetMinutes?: number;
  /** The most flights held, of the open days; the least recently used goes first. */
  readonly maxFlights: number;
  /** The most identity owners held (only those inside the dedupe window); the least recently used goes first. */
  readonly maxIdentities: number;
}

export const DEFAULT_LEADER_MEMORY_OPTIONS: LeaderMemoryOptions = { openDays: 1, airportUtcOffsetMinutes: 480, dayStartOffsetMinutes: 0, maxFlights: 20_000, maxIdentities: 100_000 };

/**
 * Owners a run never looks up again, and flights of days that closed, leave by a sweep this often
 * (of the runs' `now`), or once per window if shorter.
 */
const SWEEP_EVERY_MS = 60_000;

/** How many entries the memory holds, per kind (the runner's `msgx_leader_memory_entries` gauge). */
export interface LeaderMemorySizes {
  readonly flights: number;
  readonly identities: number;
}

/** A read of the memory that changed nothing (`LeaderMemory.peek`). */
export interface MemoryView {
  readonly flights: Map<string, FlightState>;
  readonly owners: Map<string, IdentityOwner>;
  /** The FLIDs asked for that the memory does not hold (every one when it holds no generation). */
  readonly missing: readonly string[];
}

/**
 * The leader's memory (issue 32): the flights and identity owners the pump's decisions read, so a
 * run is decided without reading them again. PostgreSQL stays the only source of truth; the
 * memory is a copy valid for one **state generation** (`PipelineStore.loadRunState`), which every
 * other writer of that state moves on (see `PipelineStore`'s guarantees).
 *
 * - **Write-through**: it changes only from a load (`adopt`) or after a run committed
 *   (`committed`: the run's flights, and its bindings with `boundAt` = the run's `now`).
 * - **What it holds**: a flight by FLID, as `PipelineTx.loadFlights` gives it, or `null` when
 *   the store has none (a FLID never seen); an identity owner by key. A key it does not hold is
 *   unknown, which the pump takes as unbound: `commitRun` checks every new binding in the store.
 * - **Bounded** by operation day, with an LRU beyond: only flights of the open days (`openDays`)
 *   and absent FLIDs are held, a flight of a day that closed leaves at the next sweep, and at
 *   most `maxFlights` flights and `maxIdentities` owners, the least recently used evicted first;
 *   an owner bound longer ago than the dedupe window is evicted too (a lookup at a later `now` no
 *   longer gives it), since only a differing body, which the store's check brings back, could need it.
 * - **Dropped** (`drop`) when the generation moved on, after a write it did not see (the pump's
 *   own `transaction`), or when a commit's outcome is unknown or refused.
 *
 * Pure: no I/O; time is the `now` of the caller's run.
 */
export class LeaderMemory {
  readonly #options: LeaderMemoryOptions;
  readonly #window: number;
  #generation: number | undefined;
  /** Insertion order is use order: the first entry is the least recently used. */
  readonly #flights = new Map<string, FlightState | null>();
  readonly #owners = new Map<string, IdentityOwner>();
  #sweptAt = Number.NEGATIVE_INFINITY;

  constructor(options: Partial<LeaderMemoryOptions> = {}, window = DEFAULT_IDENTITY_WINDOW_MS) {
    this.#options = { ...DEFAULT_LEADER_MEMORY_OPTIONS, ...options };
    this.#window = window;
  }

  /** The generation the memory is valid for; undefined before the first load or after a drop. */
  get generation(): number | undefined {
    return this.#generation;
  }

  get sizes(): LeaderMemorySizes {
    return { flights: this.#flights.size, identities: this.#owners.size };
  }

  /** Forgets everything: the next run loads from the store. */
  drop(): void {
    this.#generation = undefined;
    this.#flights.clear();
    this.#owners.clear();
  }

  /** The FLIDs among `flids` the memory does not hold (every one when it holds no generation). */
  missingFlights(flids: readonly string[]): string[] {
    return this.#generation === undefined ? [...flids] : flids.filter((f) => !this.#flights.has(f));
  }

  /** The held flights among `flids` (a FLID held as absent is left out, as `loadFlights` does). */
  flights(flids: readonly string[]): Map<string, FlightState> {
    const found = new Map<string, FlightState>();
    for (const flid of flids) {
      const flight = this.#touch(this.#flights, flid);
      if (flight !== undefined && flight !== null) found.set(flid, flight);
    }
    return found;
  }

  /** The held owners among `keys` still inside the dedupe window at `now`. */
  owners(keys: readonly string[], now: number): Map<string, IdentityOwner> {
    const found = new Map<string, IdentityOwner>();
    for (const key of keys) {
      const owner = this.#touch(this.#owners, key);
      if (owner === undefined) continue;
      if (this.#expired(owner, now)) this.#owners.delete(key);
      else found.set(key, owner);
    }
    return found;
  }

  /**
   * What `flights` and `owners` would give for `flids` and `keys` at `now`, and the FLIDs it does
   * not hold (`missingFlights`), without changing anything: neither the use order nor an expired
   * owner is touched, so a speculative decision (`Speculation`) leaves the memory as it found it.
   */
  peek(flids: readonly string[], keys: readonly string[], now: number): MemoryView {
    const flights = new Map<string, FlightState>();
    const owners = new Map<string, IdentityOwner>();
    for (const flid of flids) {
      const flight = this.#flights.get(flid);
      if (flight !== undefined && flight !== null) flights.set(flid, flight);
    }
    for (const key of keys) {
      const owner = this.#owners.get(key);
      if (owner !== undefined && !this.#expired(owner, now)) owners.set(key, owner);
    }
    return { flights, owners, missing: this.missingFlights(flids) };
  }

  /**
   * Takes what `loadRunState(keys, flids)` read: a generation other than the held one drops the
   * memory first. Each FLID of `flids` the store did not give is held as absent.
   */
  adopt(loaded: LoadedRunState, flids: readonly string[], now: number): void {
    if (loaded.generation !== this.#generation) this.drop();
    this.#generation = loaded.generation;
    const firstOpenDay = this.#firstOpenDay(now);
    for (const flid of flids) this.#putFlight(flid, loaded.flights.get(flid) ?? null, firstOpenDay);
    for (const [key, owner] of loaded.owners) if (!this.#expired(owner, now)) this.#put(this.#owners, key, owner, this.#options.maxIdentities);
  }

  /** Applies a run that `commitRun` committed at the held generation, decided at `now`. */
  committed(decision: RunDecision, now: number): void {
    if (this.#generation === undefined) return;
    this.#sweep(now);
    const firstOpenDay = this.#firstOpenDay(now);
    for (const f of decision.flights) this.#putFlight(f.flid, f, firstOpenDay);
    for (const b of decision.bindings) {
      const held = this.#owners.get(b.identityKey);
      // A key its own message holds already is left as the store leaves it.
      if (held?.msgId === b.msgId) continue;
      this.#put(this.#owners, b.identityKey, { msgId: b.msgId, contentHash: b.contentHash ?? null, boundAt: now }, this.#options.maxIdentities);
    }
  }

  /** Every held flight (absent ones as `null`) and owner, for tests that compare them with the store. */
  entries(): { readonly flights: ReadonlyMap<string, FlightState | null>; readonly owners: ReadonlyMap<string, IdentityOwner> } {
    return { flights: new Map(this.#flights), owners: new Map(this.#owners) };
  }

  /** An owner with a known bind time older than the window (one without counts as inside it, as the dedupe rule does). */
  #expired(owner: IdentityOwner, now: number): boolean {
    return owner.boundAt !== undefined && now - owner.boundAt > this.#window;
  }

  /** Evicts every owner outside the window and every flight of a closed day, at most once per sweep interval of `now`. */
  #sweep(now: number): void {
    if (now - this.#sweptAt < Math.min(this.#window, SWEEP_EVERY_MS)) return;
    this.#sweptAt = now;
    for (const [key, owner] of this.#owners) if (this.#expired(owner, now)) this.#owners.delete(key);
    const firstOpenDay = this.#firstOpenDay(now);
    for (const [flid, flight] of this.#flights) if (closed(flight, firstOpenDay)) this.#flights.delete(flid);
  }

  /** The first operation day (`yyyyMMdd`) still open at `now`. */
  #firstOpenDay(now: number): string {
    const o = this.#options;
    return airportDayBefore(now, o.openDays, o.airportUtcOffsetMinutes, o.dayStartOffsetMinutes);
  }

  /** Holds `flight` (null: the store has none), or lets go of an older copy when its day closed. */
  #putFlight(flid: string, flight: FlightState | null, firstOpenDay: string): void {
    if (closed(flight, firstOpenDay)) this.#flights.delete(flid);
    else this.#put(this.#flights, flid, flight, this.#options.maxFlights);
  }

  #touch<V>(map: Map<string, V>, key: string): V | undefined {
    if (!map.has(key)) return undefined;
    const value = map.get(key) as V;
    map.delete(key);
    map.set(key, value);
    return value;
  }

  #put<V>(map: Map<string, V>, key: string, value: V, max: number): void {
    map.delete(key);
    map.set(key, value);
    while (map.size > max) map.delete(map.keys().next().value as string);
  }
}

/** A stored flight dated before the first open day (an absent or undated one is never closed). */
function closed(flight: FlightState | null, firstOpenDay: string): boolean {
  return flight !== null && flight.operationDay !== null && flight.operationDay < firstOpenDay;
}
