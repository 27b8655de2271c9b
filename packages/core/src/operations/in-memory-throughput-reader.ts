import { isTerminal } from "../model/proc-record.js";
import type { InMemoryPipelineStore } from "../processing/in-memory-pipeline-store.js";
import { assertThroughputWindow, emptyMinutes, MINUTE_MS, type MinuteThroughput, type ThroughputReader } from "./throughput-reader.js";

/** The in-memory {@link ThroughputReader}: scans the fake store's records, archive and events. */
export class InMemoryThroughputReader implements ThroughputReader {
  constructor(private readonly store: Pick<InMemoryPipelineStore, "tables" | "archive">) {}

  async throughput(fromMs: number, minutes: number): Promise<readonly MinuteThroughput[]> {
    assertThroughputWindow(fromMs, minutes);
    const out = emptyMinutes(fromMs, minutes);
    const slot = (at: number) => (at >= fromMs && at < fromMs + minutes * MINUTE_MS ? out[Math.floor((at - fromMs) / MINUTE_MS)] : undefined);
    const records = [...this.store.tables.records.values(), ...[...this.store.archive.values()].map((a) => a.record)];
    for (const r of records) {
      const s = isTerminal(r.status) ? slot(r.updatedAt) : undefined;
      if (s) s.processed += 1;
    }
    for (const e of this.store.tables.events) {
      const s = e.sentAt === null ? undefined : slot(e.sentAt);
      if (s) s.sent += 1;
    }
    return out;
  }
}
