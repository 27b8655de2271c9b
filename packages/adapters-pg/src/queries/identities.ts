import { MsgxError, type IdentityBinding, type IdentityOwner } from "@msgx/core";
import { sql, type RawBuilder } from "kysely";
import { fromJson, jsonParam, toNumber } from "../rows/values.js";
import type { Db } from "./db.js";
import type { WritePart } from "./write-part.js";

/** The owner of each bound key among `keys`, with the content hash stored with its binding. */
export async function identityOwners(db: Db, keys: readonly string[]): Promise<Map<string, IdentityOwner>> {
  if (keys.length === 0) return new Map();
  const { rows } = await sql<{ identity_key: string; msg_id: unknown; content_hash: string | null }>`
    SELECT identity_key, msg_id, content_hash FROM msg_identity WHERE identity_key = ANY(${[...keys]}::text[])`.execute(db);
  return new Map(rows.map((r) => [r.identity_key, { msgId: toNumber(r.msg_id), contentHash: r.content_hash }]));
}

/** `identityOwners` as one jsonb value (`[[key, msgId, contentHash], …]`, or NULL for none), to ride in another statement. */
export const identityOwnersJson = (keys: readonly string[]): RawBuilder<unknown> => sql`
  (SELECT jsonb_agg(jsonb_build_array(identity_key, msg_id, content_hash)) FROM msg_identity WHERE identity_key = ANY(${[...keys]}::text[]))`;

/** The owners from `identityOwnersJson`'s value. */
export function ownersFromJson(value: unknown): Map<string, IdentityOwner> {
  const entries = (fromJson<[string, unknown, string | null][] | null>(value) ?? []);
  return new Map(entries.map(([key, msgId, contentHash]) => [key, { msgId: toNumber(msgId), contentHash }]));
}

/**
 * Binds identities in one multi-row INSERT. A key already bound to another message, or given
 * twice, violates the primary key (23505): the transaction fails, and the pump retries smaller.
 * A key already bound to the same message is left as it is.
 */
export function bindIdentitiesParts(bindings: readonly IdentityBinding[], now: number): WritePart[] {
  if (bindings.length === 0) return [];
  // A key given twice is refused even when it is already bound to that message (the filter
  // below would let both through silently).
  const keys = new Set(bindings.map((b) => b.identityKey));
  if (keys.size !== bindings.length) throw new MsgxError("INFRA", "unique violation: an identity is bound twice in one run");
  const rows = bindings.map((b) => ({ identity_key: b.identityKey, msg_id: b.msgId, content_hash: b.contentHash ?? null }));
  return [
    {
      name: "ins_msg_identity",
      body: sql`
        INSERT INTO msg_identity (identity_key, msg_id, bound_at, content_hash)
        SELECT x.identity_key, x.msg_id, to_timestamp(${now}::bigint / 1000.0), x.content_hash
        FROM jsonb_to_recordset(${jsonParam(rows)}::jsonb) AS x(identity_key text, msg_id bigint, content_hash text)
        WHERE NOT EXISTS (SELECT 1 FROM msg_identity m WHERE m.identity_key = x.identity_key AND m.msg_id = x.msg_id)`,
    },
  ];
}
