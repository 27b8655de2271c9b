/**
 * The "same writes" job of the peers benchmark: msgx's captured run decisions split per message,
 * and one message's rows written again with plain per-row SQL, as a job queue's user would write
 * a handler that does what msgx does for that message. The rows go into msgx's own tables (a
 * fresh schema migrated by `createPgStores`, the DNLD applied and the messages enqueued untimed),
 * so every system writes the same rows into the same tables and indexes.
 *
 * What a job writes, in one transaction: the flight row locked `FOR UPDATE` (what msgx's
 * transaction reads to decide), the message's `proc_state` record, its identity, the flight row
 * and the collection rows that message changed (deleted and inserted again, one row per
 * statement), its two outbox events (`KAFKA:msg`, `KAFKA:schd`, the same payloads) and its
 * backfill todo. Not the todo's completion (msgx deletes its todos after each run): the peers get
 * that one for free.
 */
import { flightFromPayload, flightToPayload, type BackfillEntry, type CollectionName, type FlightPayload, type FlightState, type IdentityBinding, type OutboxEventDraft, type ProcRecord, type RunDecision } from "@msgx/core";
import { COLLECTION_TABLES } from "../../packages/adapters-pg/src/rows/collection-tables.js";

const COLLECTIONS = Object.keys(COLLECTION_TABLES) as CollectionName[];

export interface SqlClient {
  query(text: string, params?: readonly unknown[]): Promise<{ readonly rows: Record<string, unknown>[]; readonly rowCount?: number | null }>;
}

/** Everything msgx wrote for one message. */
export interface MessageWrites {
  readonly msgId: number;
  /** The flight the message is about (locked even when it changed nothing). */
  readonly flid: string;
  readonly record: ProcRecord;
  readonly bindings: readonly IdentityBinding[];
  /** The flight after this message, when it changed it. */
  readonly flight: FlightState | undefined;
  /** The collections whose rows this message changed (rewritten). */
  readonly rewrite: readonly CollectionName[];
  readonly events: readonly OutboxEventDraft[];
  readonly backfill: readonly BackfillEntry[];
}

/** Row counts a replay of `writes` must add. */
export interface ExpectedRows {
  readonly events: number;
  readonly todos: number;
  readonly identities: number;
  readonly flightChanges: number;
  /** Σ state_version over the flights the messages changed, after them. */
  readonly finalVersionSum: number;
  readonly changedFlids: readonly string[];
}

const canonical = (f: FlightState): FlightState => flightFromPayload(flightToPayload(f));
const rowsText = (f: FlightState | undefined, c: CollectionName): string => JSON.stringify(f?.collections[c] ?? null);

/**
 * Splits msgx's run decisions (in commit order) into one `MessageWrites` per message, ascending by
 * id, the first `count` of them. `initial` holds the flights as the DNLD left them (before any of
 * the messages); a message's flight state is its `KAFKA:msg` event's payload (the full state).
 */
export function splitDecisions(decisions: readonly RunDecision[], flids: ReadonlyMap<number, string>, count: number, initial: ReadonlyMap<string, FlightState>): MessageWrites[] {
  const current = new Map<string, FlightState>();
  for (const [flid, f] of initial) current.set(flid, canonical(f));
  const out: MessageWrites[] = [];
  const seen = new Set<number>();
  for (const d of decisions) {
    for (const record of d.records) {
      if (out.length === count) return out;
      if (seen.has(record.msgId)) throw new Error(`message ${record.msgId} decided twice: the split needs one decision per message`);
      seen.add(record.msgId);
      const flid = flids.get(record.msgId);
      if (flid === undefined) throw new Error(`message ${record.msgId} is not a FLOP of the stream`);
      const events = d.events.filter((e) => e.sourceMsgId === record.msgId);
      const msgEvent = events.find((e) => e.payload !== null && e.payload !== undefined);
      let flight: FlightState | undefined;
      let rewrite: CollectionName[] = [];
      if (msgEvent !== undefined) {
        flight = flightFromPayload(msgEvent.payload as FlightPayload);
        if (flight.flid !== flid) throw new Error(`message ${record.msgId} changed flight ${flight.flid}, not ${flid}`);
        const before = current.get(flid);
        rewrite = COLLECTIONS.filter((c) => before === undefined || rowsText(before, c) !== rowsText(flight, c));
        current.set(flid, flight);
      }
      out.push({
        msgId: record.msgId,
        flid,
        record,
        bindings: d.bindings.filter((b) => b.msgId === record.msgId),
        flight,
        rewrite,
        events,
        backfill: d.backfill.filter((b) => b.msgId === record.msgId),
      });
    }
  }
  if (out.length !== count) throw new Error(`the decisions hold ${out.length} messages, ${count} asked`);
  return out;
}

export function expectedRows(writes: readonly MessageWrites[]): ExpectedRows {
  const last = new Map<string, number>();
  for (const w of writes) if (w.flight) last.set(w.flight.flid, w.flight.stateVersion);
  return {
    events: writes.reduce((n, w) => n + w.events.length, 0),
    todos: writes.reduce((n, w) => n + w.backfill.length, 0),
    identities: writes.reduce((n, w) => n + w.bindings.length, 0),
    flightChanges: writes.filter((w) => w.flight).length,
    finalVersionSum: [...last.values()].reduce((a, b) => a + b, 0),
    changedFlids: [...last.keys()],
  };
}

const ts = (ms: number | null | undefined): string | null => (ms === null || ms === undefined ? null : new Date(ms).toISOString());
const json = (v: unknown): string | null => (v === null || v === undefined ? null : JSON.stringify(v));

/**
 * One message's writes in one transaction, one statement per row (what a job handler written by
 * hand does). Throws when a row it updates is missing.
 */
export async function applyMessageWrites(client: SqlClient, schema: string, w: MessageWrites): Promise<void> {
  const now = Date.now();
  const t = (table: string) => `${schema}.${table}`;
  await client.query("BEGIN");
  try {
    const locked = await client.query(`SELECT state_version FROM ${t("flight_schd")} WHERE flid = $1 FOR UPDATE`, [w.flid]);
    if (locked.rows.length !== 1) throw new Error(`flight ${w.flid} is not stored`);
    const r = w.record;
    const updated = await client.query(
      `UPDATE ${t("proc_state")} SET status = $2, attempts = $3, next_attempt_at = $4, head_since = $5, identity_key = $6, meta = $7,
              error_class = $8, reason = $9, history = $10, received_at = $11, updated_at = $12
       WHERE msg_id = $1`,
      [r.msgId, r.status, r.attempts, ts(r.nextAttemptAt), ts(r.headSince), r.identityKey, json(r.meta), r.errorClass, r.reason, JSON.stringify(r.history), ts(r.receivedAt), ts(r.updatedAt)],
    );
    if (updated.rowCount !== 1) throw new Error(`no proc_state row for message ${r.msgId}`);
    for (const b of w.bindings) {
      await client.query(`INSERT INTO ${t("msg_identity")} (identity_key, msg_id, bound_at, content_hash) VALUES ($1, $2, $3, $4)`, [b.identityKey, b.msgId, ts(now), b.contentHash ?? null]);
    }
    const f = w.flight;
    if (f !== undefined) {
      const known = COLLECTIONS.filter((c) => f.collections[c] !== undefined);
      const flight = await client.query(
        `UPDATE ${t("flight_schd")} SET ffid = $2, operation_day = $3, state_version = $4, last_msg_id = $5, last_src_dttm = $6, deleted = $7,
                scalars = $8, collections_known = $9, updated_at = $10
         WHERE flid = $1`,
        [f.flid, f.ffid, f.operationDay, f.stateVersion, f.lastMsgId, f.lastSrcDttm, f.deleted, JSON.stringify(f.scalars), known, ts(now)],
      );
      if (flight.rowCount !== 1) throw new Error(`flight ${f.flid} vanished`);
      for (const c of w.rewrite) {
        await client.query(`DELETE FROM ${t(COLLECTION_TABLES[c])} WHERE flid = $1`, [f.flid]);
        const rows = f.collections[c] ?? [];
        for (let ord = 0; ord < rows.length; ord += 1) {
          await client.query(`INSERT INTO ${t(COLLECTION_TABLES[c])} (flid, seq_key, ord, row_values) VALUES ($1, $2, $3, $4)`, [f.flid, rows[ord]!.key, ord, JSON.stringify(rows[ord]!.values)]);
        }
      }
    }
    for (const e of w.events) {
      await client.query(
        `INSERT INTO ${t("msg_event")} (target, partition_key, event_type, state_version, payload, source_msg_id, traceparent, headers, status, attempts, created_at)
         VALUES ($1, $2, $3, $4, $5::json, $6, $7, $8, 'PENDING', 0, $9)`,
        [e.target, e.partitionKey, e.eventType, e.stateVersion, json(e.payload), e.sourceMsgId, e.traceparent ?? null, json(e.headers), ts(now)],
      );
    }
    for (const b of w.backfill) {
      await client.query(`INSERT INTO ${t("backfill_todo")} (msg_id, processed_at, meta, attempts, next_attempt_at, last_error) VALUES ($1, $2, $3, 0, $4, NULL)`, [
        b.msgId,
        ts(b.processedAt),
        json(b.meta),
        ts(now + 60_000),
      ]);
    }
    await client.query("COMMIT");
  } catch (e) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw e;
  }
}

/** The row counts a same-writes check compares (taken before the jobs run and after). */
export interface RowCounts {
  readonly events: number;
  readonly todos: number;
  readonly identities: number;
  readonly unfinished: number;
}

export async function rowCounts(client: SqlClient, schema: string): Promise<RowCounts> {
  const { rows } = await client.query(
    `SELECT (SELECT count(*) FROM ${schema}.msg_event)::int AS events, (SELECT count(*) FROM ${schema}.backfill_todo)::int AS todos,
            (SELECT count(*) FROM ${schema}.msg_identity)::int AS identities,
            (SELECT count(*) FROM ${schema}.proc_state WHERE status IN ('PENDING','FAILED'))::int AS unfinished`,
  );
  const r = rows[0]!;
  return { events: Number(r["events"]), todos: Number(r["todos"]), identities: Number(r["identities"]), unfinished: Number(r["unfinished"]) };
}

/**
 * Checks that the jobs wrote exactly msgx's rows for their messages: as many events, todos and
 * identities as msgx wrote, every record decided, every changed flight at msgx's final version
 * (each job ran once: a second run of a job would fail on its identity, or add events), and that
 * each job's handler ran once. Returns a note for the table.
 */
export async function checkSameWrites(client: SqlClient, schema: string, before: RowCounts, expected: ExpectedRows, runs: ReadonlyMap<number, number>, jobs: number): Promise<string> {
  const after = await rowCounts(client, schema);
  const fail = (what: string) => {
    throw new Error(`${schema}: ${what}`);
  };
  if (after.events - before.events !== expected.events) fail(`${after.events - before.events} events written, msgx wrote ${expected.events}`);
  if (after.todos - before.todos !== expected.todos) fail(`${after.todos - before.todos} backfill todos written, msgx wrote ${expected.todos}`);
  if (after.identities - before.identities !== expected.identities) fail(`${after.identities - before.identities} identities bound, msgx bound ${expected.identities}`);
  if (before.unfinished - after.unfinished !== jobs || after.unfinished !== 0) fail(`${before.unfinished - after.unfinished} records decided of ${jobs} (${after.unfinished} left unfinished)`);
  const { rows } = await client.query(`SELECT coalesce(sum(state_version), 0)::bigint AS v FROM ${schema}.flight_schd WHERE flid = ANY($1::text[])`, [expected.changedFlids]);
  if (Number(rows[0]!["v"]) !== expected.finalVersionSum) fail(`the changed flights' versions sum to ${String(rows[0]!["v"])}, msgx's to ${expected.finalVersionSum}`);
  if (runs.size !== jobs || [...runs.values()].some((n) => n !== 1)) fail(`${runs.size} of ${jobs} jobs ran, some more than once`);
  return `every job once; msgx's ${expected.events} events, ${expected.todos} todos, ${expected.flightChanges} flight changes`;
}
