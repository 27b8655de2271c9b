import type { RequestDraft, RequestFilter, RequestRecord } from "@msgx/core";
import { sql } from "kysely";
import { REQUEST_COLUMNS, REQUEST_SELECT, requestFromRow, requestValues, type RequestRow } from "../requests/request-row.js";
import { toNumber } from "../rows/values.js";
import type { Db } from "./db.js";

/** Inserts a request; the id comes from `req_track`'s sequence (ascending). */
export async function insertRequest(db: Db, draft: RequestDraft): Promise<RequestRecord> {
  const { rows } = await sql<RequestRow>`
    INSERT INTO req_track (${sql.raw(REQUEST_COLUMNS)}) VALUES ${requestValues(draft)}
    RETURNING ${sql.raw(REQUEST_SELECT)}`.execute(db);
  return requestFromRow(rows[0]!);
}

export async function getRequest(db: Db, requestId: string): Promise<RequestRecord | undefined> {
  if (!/^\d{1,18}$/.test(requestId)) return undefined;
  const { rows } = await sql<RequestRow>`SELECT ${sql.raw(REQUEST_SELECT)} FROM req_track WHERE req_id = ${requestId}::bigint`.execute(db);
  return rows[0] === undefined ? undefined : requestFromRow(rows[0]);
}

/** Requests matching `f`, newest first. */
export async function listRequests(db: Db, f: RequestFilter): Promise<RequestRecord[]> {
  const where = [sql`true`];
  if (f.statuses !== undefined) where.push(sql`status = ANY(${[...f.statuses]}::text[])`);
  if (f.requestType !== undefined) where.push(sql`req_type = ${f.requestType}`);
  if (f.beforeId !== undefined) where.push(sql`req_id < ${f.beforeId}::bigint`);
  const { rows } = await sql<RequestRow>`
    SELECT ${sql.raw(REQUEST_SELECT)} FROM req_track WHERE ${sql.join(where, sql` AND `)}
    ORDER BY req_id DESC LIMIT ${f.limit}`.execute(db);
  return rows.map(requestFromRow);
}

/** Every open request (REGISTERED, SENT, WAITING), ascending by id. */
export async function openRequests(db: Db): Promise<RequestRecord[]> {
  const { rows } = await sql<RequestRow>`
    SELECT ${sql.raw(REQUEST_SELECT)} FROM req_track WHERE status IN ('REGISTERED','SENT','WAITING') ORDER BY req_id`.execute(db);
  return rows.map(requestFromRow);
}

/** The open request of one type (the partial unique index allows one), locked for the transaction. */
export async function openOfType(db: Db, requestType: string): Promise<RequestRecord | undefined> {
  const { rows } = await sql<RequestRow>`
    SELECT ${sql.raw(REQUEST_SELECT)} FROM req_track
    WHERE req_type = ${requestType} AND status IN ('REGISTERED','SENT','WAITING') FOR UPDATE`.execute(db);
  return rows[0] === undefined ? undefined : requestFromRow(rows[0]);
}

/**
 * The requests a reply may answer (SENT, WAITING), ascending by id, locked `FOR UPDATE` for the
 * pipeline transaction: a concurrent expiry waits for it, then finds the version moved on.
 */
export async function answerableRequests(db: Db): Promise<RequestRecord[]> {
  const { rows } = await sql<RequestRow>`
    SELECT ${sql.raw(REQUEST_SELECT)} FROM req_track WHERE status IN ('SENT','WAITING') ORDER BY req_id FOR UPDATE`.execute(db);
  return rows.map(requestFromRow);
}

/**
 * Replaces the row of `next.requestId` if it still has `expectedVersion`; true when it did. Under
 * READ COMMITTED a concurrent writer's update (or the pipeline's row lock) is waited for and the
 * version re-checked on the row it committed, so of two writers expecting one version one wins.
 */
export async function updateRequest(db: Db, next: RequestRecord, expectedVersion: number): Promise<boolean> {
  const { rows } = await sql`
    UPDATE req_track SET (${sql.raw(REQUEST_COLUMNS)}) = ROW ${requestValues(next)}
    WHERE req_id = ${next.requestId}::bigint AND version = ${expectedVersion}::integer
    RETURNING req_id`.execute(db);
  return rows.length === 1;
}

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

export async function saveSeqn(db: Db, sndr: string, seqn: number): Promise<void> {
  await sql`
    INSERT INTO req_counter (sndr, last_seqn) VALUES (${sndr}, ${seqn}::bigint)
    ON CONFLICT (sndr) DO UPDATE SET last_seqn = EXCLUDED.last_seqn`.execute(db);
}
