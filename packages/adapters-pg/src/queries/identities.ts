import { MsgxError, type IdentityBinding, type IdentityOwner } from "@msgx/core";
import { sql, type RawBuilder } from "kysely";
import { fromJson, jsonParam, toNumber } from "../rows/values.js";
import type { Db } from "./db.js";
import type { WritePart } from "./write-part.js";

/** `bound_at` as epoch milliseconds (`IdentityOwner.boundAt`), exact for the millisecond times the bindings are written with. */
const BOUND_MS = sql`(extract(epoch FROM bound_at) * 1000)::bigint`;

/** The owner of each bound key among `keys`, with the content hash stored with its binding and when it was bound. */
export async function identityOwners(db: Db, keys: readonly string[]): Promise<Map<string, IdentityOwner>> {
  if (keys.length === 0) return new Map();
  const { rows } = await sql<{ identity_key: string; msg_id: unknown; content_hash: string | null; bound_ms: unknown }>`
    SELECT identity_key, msg_id, content_hash, ${BOUND_MS} AS bound_ms FROM msg_identity WHERE identity_key = ANY(${[...keys]}::text[])`.execute(db);
  return new Map(rows.map((r) => [r.identity_key, owner(r.msg_id, r.content_hash, r.bound_ms)]));
}

/** `identityOwners` as one jsonb value (`[[key, msgId, contentHash, boundMs], …]`, or NULL for none), to ride in another statement. */
export const identityOwnersJson = (keys: readonly string[]): RawBuilder<unknown> => sql`
  (SELECT jsonb_agg(jsonb_build_array(identity_key, msg_id, content_hash, ${BOUND_MS})) FROM msg_identity WHERE identity_key = ANY(${[...keys]}::text[]))`;

/** The owners from `identityOwnersJson`'s value. */
export function ownersFromJson(value: unknown): Map<string, IdentityOwner> {
  const entries = fromJson<[string, unknown, string | null, unknown][] | null>(value) ?? [];
  return new Map(entries.map(([key, msgId, contentHash, boundMs]) => [key, owner(msgId, contentHash, boundMs)]));
}

const owner = (msgId: unknown, contentHash: string | null, boundMs: unknown): IdentityOwner => ({ msgId: toNumber(msgId), contentHash, boundAt: toNumber(boundMs) });

/**
 * Binds identities with `now` as their `bound_at`, in one multi-row INSERT for keys not bound yet
 * and one UPDATE for keys that move to a new message after the dedupe window
 * (`IdentityBinding.replaces`). A key already bound to another message, or given twice, violates
 * the primary key (23505): the transaction fails, and the pump retries smaller. A key already bound
 * to the same message is left as it is. A move whose key is no longer held by `replaces` writes
 * fewer rows than asked: the transaction fails (INFRA) rather than take a key from its new owner.
 */
export function bindIdentitiesParts(bindings: readonly IdentityBinding[], now: number): WritePart[] {
  if (bindings.length === 0) return [];
  // A key given twice is refused even when it is already bound to that message (the filter
  // below would let both through silently).
  const keys = new Set(bindings.map((b) => b.identityKey));
  if (keys.size !== bindings.length) throw new MsgxError("INFRA", "unique violation: an identity is bound twice in one run");
  const row = (b: IdentityBinding) => ({ identity_key: b.identityKey, msg_id: b.msgId, content_hash: b.contentHash ?? null, replaces: b.replaces ?? null });
  const fresh = bindings.filter((b) => b.replaces === undefined).map(row);
  const moves = bindings.filter((b) => b.replaces !== undefined).map(row);
  const boundAt = sql`to_timestamp(${now}::bigint / 1000.0)`;
  return [
    ...(fresh.length === 0
      ? []
      : [
          {
            name: "ins_msg_identity",
            body: sql`
        INSERT INTO msg_identity (identity_key, msg_id, bound_at, content_hash)
        SELECT x.identity_key, x.msg_id, ${boundAt}, x.content_hash
        FROM jsonb_to_recordset(${jsonParam(fresh)}::jsonb) AS x(identity_key text, msg_id bigint, content_hash text)
        WHERE NOT EXISTS (SELECT 1 FROM msg_identity m WHERE m.identity_key = x.identity_key AND m.msg_id = x.msg_id)`,
          },
        ]),
    ...(moves.length === 0
      ? []
      : [
          {
            name: "mov_msg_identity",
            body: sql`
        UPDATE msg_identity m SET msg_id = x.msg_id, bound_at = ${boundAt}, content_hash = x.content_hash
        FROM jsonb_to_recordset(${jsonParam(moves)}::jsonb) AS x(identity_key text, msg_id bigint, content_hash text, replaces bigint)
        WHERE m.identity_key = x.identity_key AND m.msg_id = x.replaces
        RETURNING 1`,
            expectRows: { count: moves.length, shortfall: (written: number) => `identity moved meanwhile: ${moves.length - written} of ${moves.length} reused identities are no longer held by the message the run read` },
          },
        ]),
  ];
}
