import type { IdentityOwner } from "@msgx/core";
import { sql } from "kysely";
import { toNumber } from "../rows/values.js";
import type { Db } from "./db.js";

/** The owner of each bound key among `keys`, with the content hash stored with its binding. */
export async function identityOwners(db: Db, keys: readonly string[]): Promise<Map<string, IdentityOwner>> {
  if (keys.length === 0) return new Map();
  const { rows } = await sql<{ identity_key: string; msg_id: unknown; content_hash: string | null }>`
    SELECT identity_key, msg_id, content_hash FROM msg_identity WHERE identity_key = ANY(${[...keys]}::text[])`.execute(db);
  return new Map(rows.map((r) => [r.identity_key, { msgId: toNumber(r.msg_id), contentHash: r.content_hash }]));
}
