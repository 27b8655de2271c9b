import { assertThroughputWindow, emptyMinutes, MINUTE_MS, type MinuteThroughput, type ThroughputReader } from "@msgx/core";
import { sql, type Kysely } from "kysely";
import { pgCall } from "../pg-error-map.js";
import type { MsgxDatabase } from "../rows/tables.js";
import { toNumber } from "../rows/values.js";

/**
 * `ThroughputReader` on PostgreSQL/PGlite: one statement of grouped counts, each an index range of
 * the window — `proc_state_terminal_age_idx` (terminal records by last change),
 * `proc_state_hst_updated_idx` (the archive) and `msg_event_sent_at_idx` (sent events) — plus the
 * sent marks not folded into their rows yet (`msg_event_sent`, about a second of sends).
 */
export class PgThroughputReader implements ThroughputReader {
  constructor(private readonly db: Kysely<MsgxDatabase>) {}

  async throughput(fromMs: number, minutes: number): Promise<readonly MinuteThroughput[]> {
    assertThroughputWindow(fromMs, minutes);
    const untilMs = fromMs + minutes * MINUTE_MS;
    const from = sql`to_timestamp(${fromMs}::bigint / 1000.0)`;
    const to = sql`to_timestamp(${untilMs}::bigint / 1000.0)`;
    const minute = (column: string) => sql`floor(extract(epoch FROM ${sql.ref(column)}) * 1000 / ${MINUTE_MS}::bigint)::bigint * ${MINUTE_MS}::bigint`;
    const { rows } = await pgCall("status history", () =>
      sql<{ kind: "processed" | "sent"; at: unknown; n: unknown }>`
        SELECT 'processed' AS kind, at, count(*) AS n FROM (
          SELECT ${minute("updated_at")} AS at FROM proc_state
          WHERE status IN ('SUCCEEDED','SKIPPED','DEAD') AND updated_at >= ${from} AND updated_at < ${to}
          UNION ALL
          SELECT ${minute("updated_at")} FROM proc_state_hst
          WHERE status IN ('SUCCEEDED','SKIPPED','DEAD') AND updated_at >= ${from} AND updated_at < ${to}
        ) finished GROUP BY at
        UNION ALL
        SELECT 'sent', at, count(*) FROM (
          SELECT ${minute("sent_at")} AS at FROM msg_event
          WHERE sent_at IS NOT NULL AND sent_at >= ${from} AND sent_at < ${to}
          UNION ALL
          SELECT ${minute("sent_at")} FROM msg_event_sent x
          WHERE sent_at >= ${from} AND sent_at < ${to}
            AND EXISTS (SELECT 1 FROM msg_event m WHERE m.event_id = x.event_id AND m.status = 'PENDING')
        ) sent GROUP BY at`.execute(this.db),
    );
    const out = emptyMinutes(fromMs, minutes);
    for (const r of rows) {
      const slot = out[(toNumber(r.at) - fromMs) / MINUTE_MS];
      if (slot) slot[r.kind] += toNumber(r.n);
    }
    return out;
  }
}
