import type { RefEntry } from "./reference-entry.js";

/** Which reference rows to list: one type, ascending by key (code-point order), keyset paged. */
export interface RefListQuery {
  readonly rtype: string;
  /** Only keys after this one (paging). */
  readonly afterKey?: string;
  /** 1–1000. */
  readonly limit: number;
  /** Include DEL tombstones. Default false. */
  readonly includeDeleted?: boolean;
}

/**
 * Read access to the reference data (`REF_MASTER`), which only the pipeline writes (reference
 * processor, in the run's transaction).
 *
 * Every implementation guarantees: reads see committed rows only; `list` orders by `rkey` in
 * code-point order (PostgreSQL `COLLATE "C"`), so paging with `afterKey` neither skips nor repeats;
 * attributes come back exactly as stored.
 */
export interface ReferenceReader {
  /** The row of `(rtype, rkey)`, tombstones included; undefined when never written. */
  get(rtype: string, rkey: string): Promise<RefEntry | undefined>;
  /** A page of one type's rows (see {@link RefListQuery}). */
  list(query: RefListQuery): Promise<readonly RefEntry[]>;
  /** The reference types present, with how many live (not deleted) rows each has. */
  types(): Promise<readonly { readonly rtype: string; readonly live: number }[]>;
}

/** Refuses a list query outside its documented domain (a caller bug). */
export function assertRefListQuery(q: RefListQuery): void {
  if (!Number.isInteger(q.limit) || q.limit < 1 || q.limit > 1000) throw new RangeError(`reference list limit must be 1–1000, not ${q.limit}`);
  if (q.rtype === "") throw new RangeError("reference list needs an rtype");
}
