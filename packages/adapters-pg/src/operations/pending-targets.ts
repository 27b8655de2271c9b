import { sql, type Kysely } from "kysely";
import { mapPgError } from "../pg-error-map.js";

/**
 * The delivery targets that have PENDING outbox rows and start with `prefix` (e.g. every
 * reliable-message queue, `KAFKA:rmq.`), so a relay can start a dispatcher per target it finds.
 * Uses the partial index on pending rows.
 */
export async function pendingTargets(db: Kysely<any>, prefix: string): Promise<string[]> {
  try {
    const rows = await sql<{ target: string }>`
      SELECT DISTINCT target FROM msg_event
      WHERE status = 'PENDING' AND starts_with(target, ${prefix}) ORDER BY target`.execute(db);
    return rows.rows.map((r) => r.target);
  } catch (e) {
    throw mapPgError(e, "pending targets");
  }
}
