import { sql } from "kysely";
import { toNumber } from "../rows/values.js";
import type { Db } from "./db.js";

/** The owner of each bound key among `keys`. */
export async function identityOwners(db: Db, keys: readonly string[]): Promise<Map<string, number>> {
  if (keys.length === 0) return new Map();
  const { rows } = await sql<{ identity_key: string; msg_id: unknown }>`
    SELECT identity_key, msg_id FROM msg_identity WHERE identity_key = ANY(${[...keys]}::text[])`.execute(db);
  return new Map(rows.map((r) => [r.identity_key, toNumber(r.msg_id)]));
}
