import type { InMemoryRequestTables } from "./in-memory-request-tables.js";
import { refKey, type RefEntry } from "./reference-entry.js";
import { assertRefListQuery, type RefListQuery, type ReferenceReader } from "./reference-reader.js";

/** Code-point order, as PostgreSQL's `COLLATE "C"`. */
const byCodePoint = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** `ReferenceReader` over the fakes' tables (`InMemoryPipelineStore.tables.requestTables`). */
export class InMemoryReferenceReader implements ReferenceReader {
  constructor(private readonly tables: InMemoryRequestTables) {}

  async get(rtype: string, rkey: string): Promise<RefEntry | undefined> {
    return this.tables.references.get(refKey(rtype, rkey));
  }

  async list(q: RefListQuery): Promise<readonly RefEntry[]> {
    assertRefListQuery(q);
    return [...this.tables.references.values()]
      .filter((e) => e.rtype === q.rtype && (q.includeDeleted === true || !e.deleted) && (q.afterKey === undefined || e.rkey > q.afterKey))
      .sort((a, b) => byCodePoint(a.rkey, b.rkey))
      .slice(0, q.limit);
  }

  async types(): Promise<readonly { readonly rtype: string; readonly live: number }[]> {
    const counts = new Map<string, number>();
    for (const e of this.tables.references.values()) counts.set(e.rtype, (counts.get(e.rtype) ?? 0) + (e.deleted ? 0 : 1));
    return [...counts].sort(([a], [b]) => byCodePoint(a, b)).map(([rtype, live]) => ({ rtype, live }));
  }
}
