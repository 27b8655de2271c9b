import { sql } from "kysely";
import { toNumber } from "../../rows/values.js";
import type { Db } from "../../operations/db.js";

/**
 * Locks the SEQN counter row of `sndr` for the transaction (creating it empty on first use) and
 * returns the last SEQN issued, null when none. Two statements: the insert makes sure there is a
 * row to lock, so two first registrations still serialize.
 */
export async function lockSeqn(db: Db, sndr: string): Promise<number | null> {
  await sql`INSERT INTO req_counter (sndr, last_seqn) VALUES (${sndr}, NULL) ON CONFLICT (sndr) DO NOTHING`.execute(db);
  const { rows } = await sql<{ last_seqn: unknown }>`SELECT last_seqn FROM req_counter WHERE sndr = ${sndr} FOR UPDATE`.execute(db);
  const last = rows[0]?.last_seqn;
  return last === null || last === undefined ? null : toNumber(last);
}
