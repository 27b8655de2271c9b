import type { RefChange, RefEntry, RefListQuery } from "@msgx/core";
import { sql, type RawBuilder } from "kysely";
import { refFromRow, type RefRow } from "../requests/ref-row.js";
import { jsonParam, toNumber } from "../rows/values.js";
import type { Db } from "./db.js";

/**
 * Upserts `REF_MASTER` rows by `(rtype, rkey)` in one statement (one JSON parameter, whatever the
 * count); the caller gives each key once, with the version the change gave it.
 */
export async function upsertReferences(db: Db, changes: readonly RefChange[], now: number): Promise<void> {
  await upsertReferencesStatement(changes, now)?.execute(db);
}

/** The rows `upsertReferences` reads from its one JSON parameter. */
export const referenceRowsJson = (changes: readonly RefChange[]) =>
  changes.map((c) => ({ rtype: c.rtype, rkey: c.rkey, fields: c.fields, deleted: c.deleted, version: c.version, msg: c.msgId }));

/** `upsertReferences`' statement, to ride in another round trip; undefined for no changes. */
export function upsertReferencesStatement(changes: readonly RefChange[], now: number): RawBuilder<unknown> | undefined {
  if (changes.length === 0) return undefined;
  const rows = referenceRowsJson(changes);
  return sql`
    INSERT INTO ref_master (rtype, rkey, fields, deleted, version, last_msg_id, updated_at)
    SELECT v.rtype, v.rkey, v.fields, v.deleted, v.version, v.msg, ${new Date(now).toISOString()}::timestamptz
    FROM jsonb_to_recordset(${jsonParam(rows)}::jsonb) AS v(rtype text, rkey text, fields jsonb, deleted boolean, version integer, msg bigint)
    ON CONFLICT (rtype, rkey) DO UPDATE SET
      fields = EXCLUDED.fields, deleted = EXCLUDED.deleted, version = EXCLUDED.version, last_msg_id = EXCLUDED.last_msg_id, updated_at = EXCLUDED.updated_at`;
}

/** Every `ref_master` row of `rtypes`, tombstones included (the primary key's prefix). */
export async function loadReferences(db: Db, rtypes: readonly string[]): Promise<RefEntry[]> {
  if (rtypes.length === 0) return [];
  const { rows } = await sql<RefRow>`SELECT * FROM ref_master WHERE rtype = ANY(${[...rtypes]}::text[])`.execute(db);
  return rows.map(refFromRow);
}

export async function getReference(db: Db, rtype: string, rkey: string): Promise<RefEntry | undefined> {
  const { rows } = await sql<RefRow>`SELECT * FROM ref_master WHERE rtype = ${rtype} AND rkey = ${rkey}`.execute(db);
  return rows[0] === undefined ? undefined : refFromRow(rows[0]);
}

/** One type's rows in code-point key order (`COLLATE "C"`, the listing index), keyset paged. */
export async function listReferences(db: Db, q: RefListQuery): Promise<RefEntry[]> {
  const { rows } = await sql<RefRow>`
    SELECT * FROM ref_master
    WHERE rtype = ${q.rtype}
      ${q.includeDeleted === true ? sql`` : sql`AND NOT deleted`}
      ${q.afterKey === undefined ? sql`` : sql`AND rkey COLLATE "C" > ${q.afterKey}`}
    ORDER BY rkey COLLATE "C" LIMIT ${q.limit}`.execute(db);
  return rows.map(refFromRow);
}

/** The types present with their live (not deleted) row counts, in code-point order. */
export async function referenceTypes(db: Db): Promise<{ rtype: string; live: number }[]> {
  const { rows } = await sql<{ rtype: string; live: unknown }>`
    SELECT rtype, count(*) FILTER (WHERE NOT deleted) AS live FROM ref_master GROUP BY rtype ORDER BY rtype COLLATE "C"`.execute(db);
  return rows.map((r) => ({ rtype: r.rtype, live: toNumber(r.live) }));
}
