import type { Clock } from "../runtime/clock.js";
import { compareRunners, type RunnerBeat, type RunnerPresence, type RunnerPresenceStore } from "./runner-presence.js";

/** The in-memory {@link RunnerPresenceStore}: a map by runner id, timed by the injected clock (the "database clock"). */
export class InMemoryRunnerPresence implements RunnerPresenceStore {
  readonly #clock: Clock;
  readonly #rows = new Map<string, RunnerBeat & { readonly seenAt: number }>();

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  async beat(beat: RunnerBeat): Promise<void> {
    this.#rows.set(beat.runnerId, { ...beat, seenAt: this.#clock.now() });
  }

  async leave(runnerId: string): Promise<void> {
    this.#rows.delete(runnerId);
  }

  async list(options: { readonly staleAfterMs: number }): Promise<readonly RunnerPresence[]> {
    const now = this.#clock.now();
    return [...this.#rows.values()].map((r) => ({ ...r, stale: now - r.seenAt > options.staleAfterMs })).sort(compareRunners);
  }

  /** Test hook: makes the runner's last beat `ms` older, as if it had been silent that long. */
  age(runnerId: string, ms: number): void {
    const row = this.#rows.get(runnerId);
    if (row !== undefined) this.#rows.set(runnerId, { ...row, seenAt: row.seenAt - ms });
  }

  async prune(olderThanMs: number): Promise<number> {
    const now = this.#clock.now();
    const old = [...this.#rows.values()].filter((r) => now - r.seenAt > olderThanMs);
    for (const r of old) this.#rows.delete(r.runnerId);
    return old.length;
  }
}
