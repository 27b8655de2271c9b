import { assertLineageQuery, flightLineageKey, lineagePage, referenceLineageKey, type LineagePage, type LineageQuery, type LineageReader } from "@msgx/core";
import type { Kysely } from "kysely";
import { pgCall } from "./pg-error-map.js";
import type { Db } from "./queries/db.js";
import { lineageRows } from "./queries/lineage.js";
import type { MsgxDatabase } from "./rows/tables.js";

/**
 * `LineageReader` on PostgreSQL/PGlite: one statement per page over `msg_event` (by the
 * `msg_event_key_idx` index) joined to `proc_state` ∪ `proc_state_hst`, so a page is one
 * committed snapshot and takes no row locks; core's `lineagePage` assembles it. A page reads the
 * events of at most `limit + 1` versions.
 */
export class PgLineageReader implements LineageReader {
  readonly #db: Db;

  constructor(db: Kysely<MsgxDatabase>) {
    this.#db = db;
  }

  async flightLineage(flid: string, query: LineageQuery): Promise<LineagePage> {
    assertLineageQuery(query);
    return this.#page("flight lineage", flightLineageKey(flid), query);
  }

  async referenceLineage(rtype: string, rkey: string, query: LineageQuery): Promise<LineagePage> {
    assertLineageQuery(query);
    return this.#page("reference lineage", referenceLineageKey(rtype, rkey), query);
  }

  async #page(operation: string, key: string, query: LineageQuery): Promise<LineagePage> {
    const { events, sources } = await pgCall(operation, () => lineageRows(this.#db, key, query.limit + 1, query.beforeVersion));
    return lineagePage(events, (msgId) => sources.get(msgId), query.limit);
  }
}
