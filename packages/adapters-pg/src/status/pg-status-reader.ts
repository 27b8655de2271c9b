import { sql, type Kysely } from "kysely";
import type { MsgxDatabase } from "../rows/tables.js";
import { ProcStatus, type PipelineStatus, type StatusReader } from "@msgx/core";
import { mapPgError } from "../pg-error-map.js";

/**
 * `StatusReader` on PostgreSQL/PGlite: four queries. Unfinished and DEAD counts and the head use
 * the partial indexes; the SUCCEEDED/SKIPPED counts scan live `proc_state` rows, which the archive
 * job keeps bounded by moving terminal rows to `proc_state_hst`.
 */
export class PgStatusReader implements StatusReader {
  constructor(private readonly db: Kysely<MsgxDatabase>) {}

  async status(): Promise<PipelineStatus> {
    try {
      const [counts, head, delivery, misc] = await Promise.all([
        sql<{ status: ProcStatus; n: string }>`SELECT status, count(*)::text AS n FROM proc_state GROUP BY status`.execute(this.db),
        sql<{ msg_id: string; status: ProcStatus; received: string }>`
          SELECT msg_id::text, status, (extract(epoch FROM received_at) * 1000)::bigint::text AS received
          FROM proc_state WHERE status IN ('PENDING','FAILED') ORDER BY msg_id LIMIT 1`.execute(this.db),
        sql<{ target: string; pending: string; dead: string; oldest: string | null }>`
          SELECT target,
                 count(*) FILTER (WHERE status = 'PENDING')::text AS pending,
                 count(*) FILTER (WHERE status = 'DEAD')::text AS dead,
                 (extract(epoch FROM min(created_at) FILTER (WHERE status = 'PENDING')) * 1000)::bigint::text AS oldest
          FROM msg_event m
          WHERE status = 'DEAD' OR (status = 'PENDING' AND NOT EXISTS (SELECT 1 FROM msg_event_sent s WHERE s.event_id = m.event_id OFFSET 0))
          GROUP BY target`.execute(this.db),
        sql<{ debt: string; oldest_backfill: string | null; horizon: string | null }>`
          SELECT (SELECT count(*) FROM backfill_todo)::text AS debt,
                 (SELECT (extract(epoch FROM min(processed_at)) * 1000)::bigint FROM backfill_todo)::text AS oldest_backfill,
                 (SELECT horizon FROM intake_state WHERE id = 1)::text AS horizon`.execute(this.db),
      ]);
      const byStatus = Object.fromEntries(Object.values(ProcStatus).map((s) => [s, 0])) as Record<ProcStatus, number>;
      for (const r of counts.rows) byStatus[r.status] = Number(r.n);
      const h = head.rows[0];
      return {
        head: h ? { msgId: Number(h.msg_id), status: h.status, receivedAt: Number(h.received) } : null,
        byStatus,
        deadLetters: byStatus.DEAD,
        backfillDebt: Number(misc.rows[0]?.debt ?? 0),
        oldestBackfillAt: misc.rows[0]?.oldest_backfill == null ? null : Number(misc.rows[0].oldest_backfill),
        delivery: Object.fromEntries(
          delivery.rows.map((d) => [d.target, { pending: Number(d.pending), dead: Number(d.dead), oldestPendingAt: d.oldest === null ? null : Number(d.oldest) }]),
        ),
        horizon: Number(misc.rows[0]?.horizon ?? 0),
      };
    } catch (e) {
      throw mapPgError(e, "status");
    }
  }
}
