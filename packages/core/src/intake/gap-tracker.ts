/**
 * The safe horizon of the inbound mailbox (SPEC §2.5). Auto-increment ids are handed out before
 * their inserts commit, so a smaller id can appear after a larger one. The horizon is the largest
 * id such that every id at or below it was seen, or belongs to a gap older than the grace (a
 * rolled-back insert that will never appear). The pump never processes past it.
 *
 * Pure and immutable: `observe` records ids seen by a scan; `advance` moves the horizon.
 */
export interface Gap {
  readonly from: number;
  readonly to: number;
  /** When the gap was first noticed (a `Clock.monotonic()` reading). */
  readonly since: number;
}

export interface GapState {
  readonly horizon: number;
  /** The largest id seen so far (at least the horizon). */
  readonly maxSeen: number;
  /** Ids seen above the horizon. */
  readonly seen: ReadonlySet<number>;
  /** Missing ranges between the horizon and `maxSeen`, ascending. */
  readonly gaps: readonly Gap[];
}

export const GapTracker = {
  initial(horizon: number): GapState {
    return { horizon, maxSeen: horizon, seen: new Set(), gaps: [] };
  },

  /** Records ids seen by a scan at `now`. Ids at or below the horizon are not this tracker's business. */
  observe(state: GapState, ids: readonly number[], now: number): GapState {
    const seen = new Set(state.seen);
    let gaps = [...state.gaps];
    let maxSeen = state.maxSeen;
    for (const id of [...ids].sort((a, b) => a - b)) {
      if (id <= state.horizon || seen.has(id)) continue;
      seen.add(id);
      if (id > maxSeen) {
        if (id > maxSeen + 1) gaps.push({ from: maxSeen + 1, to: id - 1, since: now });
        maxSeen = id;
      } else {
        gaps = gaps.flatMap((g) =>
          id < g.from || id > g.to
            ? [g]
            : [
                ...(g.from < id ? [{ from: g.from, to: id - 1, since: g.since }] : []),
                ...(id < g.to ? [{ from: id + 1, to: g.to, since: g.since }] : []),
              ],
        );
      }
    }
    return { horizon: state.horizon, maxSeen, seen, gaps };
  },

  /**
   * Moves the horizon over seen ids and over gaps older than `graceMs`, giving up at most
   * `maxGaps` gaps (the caller confirms each one is still empty before it may pass). Returns the
   * gaps given up, so the caller logs each once.
   */
  advance(state: GapState, now: number, graceMs: number, maxGaps = Number.POSITIVE_INFINITY): { state: GapState; passed: readonly Gap[] } {
    let horizon = state.horizon;
    const seen = new Set(state.seen);
    const gaps = [...state.gaps];
    const passed: Gap[] = [];
    for (;;) {
      if (seen.delete(horizon + 1)) {
        horizon += 1;
        continue;
      }
      const first = gaps[0];
      if (first !== undefined && first.from === horizon + 1 && now - first.since >= graceMs && passed.length < maxGaps) {
        gaps.shift();
        passed.push(first);
        horizon = first.to;
        continue;
      }
      break;
    }
    return { state: { horizon, maxSeen: state.maxSeen, seen, gaps }, passed };
  },

  /** Gaps older than the grace, in id order, at most `limit`: the ones `advance` could give up. */
  expired(state: GapState, now: number, graceMs: number, limit: number): readonly Gap[] {
    return state.gaps.slice(0, limit).filter((g) => now - g.since >= graceMs);
  },

  /** The first open gap, if the horizon is waiting on one. */
  blockingGap(state: GapState): Gap | undefined {
    const first = state.gaps[0];
    return first !== undefined && first.from === state.horizon + 1 ? first : undefined;
  },
} as const;
