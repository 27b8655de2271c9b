import type { LineageEvent, LineagePage, LineageReader } from "@msgx/core";

/** A lineage event of an embedded runner: besides partition 0 and the offset, the file and line it is on. */
export interface JsonlLineageEvent extends LineageEvent {
  /** The topic's file, relative to the data directory: `events/<topic>.jsonl`. */
  readonly file?: string;
  /** The record's 1-based line in that file: its offset + 1 (a torn line left by a crash, closed off, shifts later lines by one; the line's own `offset` is exact). */
  readonly line?: number;
}

/**
 * Lineage as an embedded runner tells it: each placed event also names the JSONL file and line
 * its record is on (`JsonlDeliveryPort` writes the record of offset n as the file's line n + 1),
 * so an operator opens the file rather than looks for a Kafka partition. `topics` maps a target
 * to its topic (the exchange router's map).
 */
export function jsonlLineage(reader: LineageReader, topics: Readonly<Record<string, string>>): LineageReader {
  const placed = (page: LineagePage): LineagePage => ({
    ...page,
    versions: page.versions.map((v) => ({
      ...v,
      events: v.events.map((e): JsonlLineageEvent => {
        const topic = topics[e.target];
        return topic === undefined || e.offset === null ? e : { ...e, file: `events/${topic}.jsonl`, line: e.offset + 1 };
      }),
    })),
  });
  return {
    flightLineage: async (flid, query) => placed(await reader.flightLineage(flid, query)),
    referenceLineage: async (rtype, rkey, query) => placed(await reader.referenceLineage(rtype, rkey, query)),
  };
}
