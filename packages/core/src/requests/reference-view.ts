import type { RefState } from "./reference-entry.js";

/** Code-point order, as PostgreSQL's `COLLATE "C"`. */
const byCodePoint = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The reference rows as they stand at one point of a run (earlier messages applied), for the
 * reference processor: only the types the run loaded (`PreparedRun.referenceTypes`) are known.
 */
export interface ReferenceView {
  /** The row of `(rtype, rkey)`, tombstones included; undefined when never stored. */
  get(rtype: string, rkey: string): RefState | undefined;
  /** The keys of `rtype` that are stored and not deleted, in code-point order. */
  liveKeys(rtype: string): readonly string[];
}

/** A {@link ReferenceView} that `decideRun` moves forward change by change. */
export class RunReferences implements ReferenceView {
  readonly #byType = new Map<string, Map<string, RefState>>();

  constructor(loaded: Iterable<RefState> = []) {
    for (const r of loaded) this.set(r);
  }

  get(rtype: string, rkey: string): RefState | undefined {
    return this.#byType.get(rtype)?.get(rkey);
  }

  liveKeys(rtype: string): readonly string[] {
    const rows = this.#byType.get(rtype);
    if (rows === undefined) return [];
    return [...rows.values()].flatMap((r) => (r.deleted ? [] : [r.rkey])).sort(byCodePoint);
  }

  /** Takes a change of the run (or a loaded row) as the row's current state. */
  set(state: RefState): void {
    let rows = this.#byType.get(state.rtype);
    if (rows === undefined) this.#byType.set(state.rtype, (rows = new Map()));
    rows.set(state.rkey, { rtype: state.rtype, rkey: state.rkey, fields: state.fields, deleted: state.deleted, version: state.version });
  }
}
