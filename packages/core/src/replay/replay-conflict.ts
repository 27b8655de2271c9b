/** A key whose current version is not the one the operator's preview showed. */
export interface VersionMismatch {
  /** `flight:<FLID>` or `reference:<RTYPE>:<RKEY>` (`versionKey.ts`). */
  readonly key: string;
  /** The version sent back in `expect`; null: the key did not exist. */
  readonly expected: number | null;
  /** The version stored now; null: the key does not exist. */
  readonly current: number | null;
}

/**
 * A replay refused by its version guard: something changed a flight or reference row the replay
 * would change since the operator previewed it. Nothing was written (no audit row either); the
 * operator previews again. The HTTP layer answers 409 with `mismatches`.
 */
export class ReplayConflictError extends Error {
  override readonly name = "ReplayConflictError";
  constructor(readonly mismatches: readonly VersionMismatch[]) {
    super(`replay refused: ${mismatches.length} key(s) changed since the preview (${mismatches.map((m) => `${m.key} expected ${m.expected ?? "none"}, now ${m.current ?? "none"}`).join("; ")})`);
  }
}

export const isReplayConflict = (e: unknown): e is ReplayConflictError => e instanceof ReplayConflictError;
