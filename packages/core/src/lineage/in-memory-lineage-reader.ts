import type { InMemoryPipelineStore } from "../processing/in-memory-pipeline-store.js";
import type { ProcRecord } from "../model/proc-record.js";
import { inLineage, lineagePage } from "./lineage-page.js";
import { assertLineageQuery, flightLineageKey, referenceLineageKey, type LineagePage, type LineageQuery, type LineageReader } from "./lineage-reader.js";

/**
 * The in-memory {@link LineageReader}: reads the outbox rows of `InMemoryPipelineStore` (the ones
 * `InMemoryOutboxStore` settles, placements included) and its records, live or archived
 * (`archive`, which `InMemoryMaintenanceStore` fills). Both only ever hold committed state.
 */
export class InMemoryLineageReader implements LineageReader {
  readonly #store: InMemoryPipelineStore;

  constructor(store: InMemoryPipelineStore) {
    this.#store = store;
  }

  async flightLineage(flid: string, query: LineageQuery): Promise<LineagePage> {
    assertLineageQuery(query);
    return this.#page(flightLineageKey(flid), query);
  }

  async referenceLineage(rtype: string, rkey: string, query: LineageQuery): Promise<LineagePage> {
    assertLineageQuery(query);
    return this.#page(referenceLineageKey(rtype, rkey), query);
  }

  #page(key: string, query: LineageQuery): LineagePage {
    this.#store.faults.check("lineage");
    const rows = this.#store.tables.events.filter((e) => inLineage(e, key, query.beforeVersion));
    const sourceOf = (msgId: number): ProcRecord | undefined => this.#store.tables.records.get(msgId) ?? this.#store.archive.get(msgId)?.record;
    return lineagePage(rows, sourceOf, query.limit);
  }
}
