import { sql } from "kysely";
import type { Db } from "../../operations/db.js";

export async function saveSeqn(db: Db, sndr: string, seqn: number): Promise<void> {
  await sql`
    INSERT INTO req_counter (sndr, last_seqn) VALUES (${sndr}, ${seqn}::bigint)
    ON CONFLICT (sndr) DO UPDATE SET last_seqn = EXCLUDED.last_seqn`.execute(db);
}
