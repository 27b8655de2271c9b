import { ProcStatus } from "../model/proc-record.js";
import { DeliveryStatus } from "../outbox/outbox-event.js";
import type { PipelineStatus, StatusReader } from "./status-reader.js";
import type { InMemoryPipelineStore } from "./in-memory-pipeline-store.js";

/** Status of the in-memory store, computed by scanning its tables. */
export class InMemoryStatusReader implements StatusReader {
  constructor(private readonly store: InMemoryPipelineStore) {}

  async status(): Promise<PipelineStatus> {
    this.store.faults.check("status");
    const t = this.store.tables;
    const records = [...t.records.values()].sort((a, b) => a.msgId - b.msgId);
    const byStatus = Object.fromEntries(Object.values(ProcStatus).map((s) => [s, 0])) as Record<ProcStatus, number>;
    for (const r of records) byStatus[r.status] += 1;
    const head = records.find((r) => r.status === ProcStatus.PENDING || r.status === ProcStatus.FAILED);
    const delivery: Record<string, { pending: number; oldestPendingAt: number | null; dead: number }> = {};
    for (const e of t.events) {
      const d = (delivery[e.target] ??= { pending: 0, oldestPendingAt: null, dead: 0 });
      if (e.status === DeliveryStatus.PENDING) {
        d.pending += 1;
        d.oldestPendingAt = d.oldestPendingAt === null ? e.createdAt : Math.min(d.oldestPendingAt, e.createdAt);
      }
      if (e.status === DeliveryStatus.DEAD) d.dead += 1;
    }
    return {
      head: head ? { msgId: head.msgId, status: head.status, receivedAt: head.receivedAt } : null,
      byStatus,
      deadLetters: byStatus.DEAD,
      backfillDebt: t.backfill.size,
      oldestBackfillAt: [...t.backfill.values()].reduce<number | null>((oldest, b) => (oldest === null || b.processedAt < oldest ? b.processedAt : oldest), null),
      delivery,
      horizon: t.intake?.horizon ?? 0,
    };
  }
}
