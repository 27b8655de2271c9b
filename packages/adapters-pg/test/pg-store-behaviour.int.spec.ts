import { msgxMigrations } from "../src/migrations/migrate.js";
/**
 * What the contract cannot see: index probes at scale, a constant number of statements per run
 * whatever its size (and no bind-parameter limit), outages mapped at the boundary (refused,
 * terminated, lost during COMMIT, lock held too long), and migrations that are idempotent.
 */
import { emptyRunDecision, DEFAULT_RETRY_POLICY, isMsgxError, ProcStatus, type FlightState, type OutboxEventDraft, type RunDecision } from "@msgx/core";
import { evolveProc } from "@msgx/core/testing";
import { gateService, ManualClock, sampleFlight } from "@msgx/core/testing";
import { Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { guardPool, lockKeys, migrateToLatest, PgPipelineStore, pgPoolConfig, prepareHotStatements } from "../src/index.js";
import { freshPgSchema, HOST_MIGRATIONS, PG_URL, probePostgres, type PgTestDb } from "./pg-harness.js";

const gate = await gateService("PostgreSQL", "adapters-pg: store behaviour", probePostgres);
const T0 = Date.UTC(2026, 2, 5, 2, 0, 0);
const meta = (seqn: number) => ({ sndr: "AODB", seqn, dttm: "20260305020000", type: "FLOP", styp: "ESTT" });

/** A decision for `n` enqueued messages: each succeeds, binds, changes its own flight, emits two events. */
async function bigDecision(t: PgTestDb, n: number, first = 1): Promise<RunDecision> {
  const ids = Array.from({ length: n }, (_, i) => first + i);
  await t.store.enqueue(ids.map((msgId) => ({ msgId, receivedAt: T0 })), { horizon: first + n - 1 });
  const records = (await t.store.list({ msgIds: ids })).map((r) =>
    evolveProc(r, { type: "succeeded" }, { now: T0, identityKey: `AODB|FLOP|ESTT|${r.msgId}`, meta: meta(r.msgId) }, DEFAULT_RETRY_POLICY),
  );
  const flights: FlightState[] = ids.map((id) => ({ ...sampleFlight(String(800000 + id), id), lastMsgId: id }));
  const events: OutboxEventDraft[] = ids.flatMap((id) =>
    ["KAFKA:msg", "KAFKA:schd"].map((target) => ({
      target,
      partitionKey: String(800000 + id),
      eventType: "UPSERT" as const,
      stateVersion: id,
      payload: { flid: String(800000 + id), n: id },
      sourceMsgId: id,
    })),
  );
  return {
    records,
    bindings: ids.map((msgId) => ({ identityKey: `AODB|FLOP|ESTT|${msgId}`, msgId })),
    flights,
    events,
    backfill: ids.map((msgId) => ({ msgId, processedAt: T0, meta: meta(msgId) })),
  };
}

describe.skipIf(!gate.available)("PgPipelineStore behaviour on PostgreSQL", () => {
  let t: PgTestDb;
  const clock = new ManualClock(T0);
  beforeAll(async () => {
    t = await freshPgSchema({ clock });
  });
  afterAll(() => t.close());

  it("finds the head and a target's pending events by index probes among 200,000 finished rows", async () => {
    await sql`
      INSERT INTO proc_state (msg_id, status, attempts, history, received_at, updated_at)
      SELECT g, 'SUCCEEDED', 0, '[]'::jsonb, now(), now() FROM generate_series(1, 200000) g`.execute(t.db);
    await sql`
      INSERT INTO msg_event (target, partition_key, event_type, state_version, source_msg_id, status, created_at)
      SELECT 'KAFKA:msg', 'F', 'UPSERT', 1, g, 'SENT', now() FROM generate_series(1, 200000) g`.execute(t.db);
    await t.store.enqueue([{ msgId: 200_001, receivedAt: T0 }], { horizon: 200_001 });
    await sql`ANALYZE proc_state`.execute(t.db);
    await sql`ANALYZE msg_event`.execute(t.db);
    const plan = async (query: string) =>
      (await sql.raw<{ "QUERY PLAN": string }>(`EXPLAIN ${query}`).execute(t.db)).rows.map((r) => r["QUERY PLAN"]).join("\n");
    expect(await plan(`SELECT * FROM proc_state WHERE status IN ('PENDING','FAILED') ORDER BY msg_id LIMIT 1`)).toMatch(
      /Index Scan using proc_state_unfinished_idx/,
    );
    expect(await plan(`SELECT * FROM msg_event WHERE target = 'KAFKA:msg' AND status = 'PENDING' ORDER BY event_id LIMIT 50`)).toMatch(
      /Index Scan using msg_event_pending_idx/,
    );
    expect((await t.store.head())?.msgId).toBe(200_001);
    await t.reset();
  });

  it("writes a run of 500 messages (1,000 events, 500 flights with collections) in the same statements as a run of one", async () => {
    const counted = async (decision: RunDecision) => {
      const statements: string[] = [];
      const db = t.db.withPlugin({
        transformQuery: (args) => {
          statements.push(args.node.kind);
          return args.node;
        },
        transformResult: async (args) => args.result,
      });
      const store = new PgPipelineStore(db, { lockNamespace: t.schema, clock });
      await store.transaction(async (tx) => {
        await tx.identityOwners(decision.bindings.map((b) => b.identityKey));
        await tx.loadFlights(decision.flights.map((f) => f.flid));
        await tx.applyRun(decision);
      });
      return statements.length;
    };
    const one = await counted(await bigDecision(t, 1, 1));
    const many = await bigDecision(t, 500, 2);
    expect(await counted(many)).toBe(one);
    expect(one).toBeLessThanOrEqual(10);
    expect((await t.store.list({ statuses: [ProcStatus.SUCCEEDED] })).length).toBe(501);
    const loaded = await t.store.transaction((tx) => tx.loadFlights(many.flights.map((f) => f.flid)));
    expect([...loaded.values()].sort((a, b) => a.stateVersion - b.stateVersion)).toEqual(many.flights);
    const events = (await sql<{ source_msg_id: string; target: string }>`SELECT source_msg_id::text, target FROM msg_event ORDER BY event_id`.execute(t.db)).rows;
    expect(events.map((e) => `${e.source_msg_id}:${e.target}`)).toEqual(
      [...Array.from({ length: 1 }, (_, i) => i + 1), ...many.records.map((r) => r.msgId)].flatMap((id) => [`${id}:KAFKA:msg`, `${id}:KAFKA:schd`]),
    );
    expect(await t.store.dueBackfill(T0 + 86_400_000, 1_000)).toHaveLength(501);
    await t.reset();
  });

  it("maps a refused connection to DEPENDENCY_UNAVAILABLE", async () => {
    const pool = guardPool(new pg.Pool(pgPoolConfig({ connectionString: "postgres://postgres@127.0.0.1:1/test", connectTimeoutMs: 1_000 })));
    const db = new Kysely<any>({ dialect: new PostgresDialect({ pool }) });
    const store = new PgPipelineStore(db);
    await expect(store.head()).rejects.toMatchObject({ kind: "DEPENDENCY_UNAVAILABLE" });
    await expect(store.transaction(async () => 1)).rejects.toMatchObject({ kind: "DEPENDENCY_UNAVAILABLE" });
    await db.destroy();
  });

  /** The backend of the open pipeline transaction: the one holding the pipeline advisory lock. */
  async function pipelineBackend(): Promise<number> {
    const [cls, obj] = lockKeys(t.schema).pipeline;
    const { rows } = await sql<{ pid: number }>`
      SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted
        AND classid = ${cls >>> 0}::bigint::oid AND objid = ${obj >>> 0}::bigint::oid AND objsubid = 2`.execute(t.db);
    return rows[0]!.pid;
  }
  const terminate = async (pid: number) => {
    await sql`SELECT pg_terminate_backend(${pid}::integer)`.execute(t.db);
    await new Promise((r) => setTimeout(r, 100));
  };

  it("maps a backend terminated mid-transaction to DEPENDENCY_UNAVAILABLE and writes nothing", async () => {
    await t.store.enqueue([{ msgId: 1, receivedAt: T0 }], { horizon: 1 });
    const one = evolveProc((await t.store.get(1))!, { type: "succeeded" }, { now: T0 }, DEFAULT_RETRY_POLICY);
    await expect(
      t.store.transaction(async (tx) => {
        await terminate(await pipelineBackend());
        await tx.applyRun({ ...emptyRunDecision, records: [one] });
      }),
    ).rejects.toMatchObject({ kind: "DEPENDENCY_UNAVAILABLE" });
    expect((await t.store.get(1))?.status).toBe(ProcStatus.PENDING);
    await t.reset();
  });

  it("maps a connection lost before COMMIT completes to COMMIT_UNKNOWN; the store recovers and re-reads", async () => {
    await t.store.enqueue([{ msgId: 1, receivedAt: T0 }], { horizon: 1 });
    const one = evolveProc((await t.store.get(1))!, { type: "succeeded" }, { now: T0 }, DEFAULT_RETRY_POLICY);
    await expect(
      t.store.transaction(async (tx) => {
        await tx.applyRun({ ...emptyRunDecision, records: [one] });
        await terminate(await pipelineBackend());
      }),
    ).rejects.toMatchObject({ kind: "COMMIT_UNKNOWN" });
    // Here the server rolled back; a caller finds out by reading again.
    expect((await t.store.get(1))?.status).toBe(ProcStatus.PENDING);
    await t.store.transaction((tx) => tx.applyRun({ ...emptyRunDecision, records: [one] }));
    expect((await t.store.get(1))?.status).toBe(ProcStatus.SUCCEEDED);
    await t.reset();
  });

  it("commits a run of 500 messages (1,000 events, 500 flights with collections) with commitRun in one query, as a run of one", async () => {
    // Counted as they come back (a statement compiled to be inlined is not sent on its own).
    const queries: unknown[] = [];
    const db = t.db.withPlugin({
      transformQuery: (args) => args.node,
      transformResult: async (args) => {
        queries.push(args.result);
        return args.result;
      },
    });
    const store = new PgPipelineStore(db, { lockNamespace: t.schema, clock });
    const one = await bigDecision(t, 1, 1);
    const many = await bigDecision(t, 500, 2);
    const { generation } = await t.store.loadRunState([], []);
    await store.commitRun(one, { generation });
    expect(queries).toHaveLength(1);
    await store.commitRun(many, { generation });
    expect(queries).toHaveLength(2);
    expect((await t.store.list({ statuses: [ProcStatus.SUCCEEDED] })).length).toBe(501);
    const loaded = await t.store.loadRunState([], many.flights.map((f) => f.flid));
    expect([...loaded.flights.values()].sort((a, b) => a.stateVersion - b.stateVersion)).toEqual(many.flights);
    const events = (await sql<{ source_msg_id: string; target: string }>`SELECT source_msg_id::text, target FROM msg_event ORDER BY event_id`.execute(t.db)).rows;
    expect(events.map((e) => `${e.source_msg_id}:${e.target}`)).toEqual([1, ...many.records.map((r) => r.msgId)].flatMap((id) => [`${id}:KAFKA:msg`, `${id}:KAFKA:schd`]));
    expect(await t.store.dueBackfill(T0 + 86_400_000, 1_000)).toHaveLength(501);
    await t.reset();
  });

  it("maps a connection lost while commitRun's round trip is in flight to COMMIT_UNKNOWN; nothing was written and the store recovers", async () => {
    await t.store.enqueue([{ msgId: 1, receivedAt: T0 }], { horizon: 1 });
    const one = evolveProc((await t.store.get(1))!, { type: "succeeded" }, { now: T0 }, DEFAULT_RETRY_POLICY);
    const { generation } = await t.store.loadRunState([], []);
    // Another session holds the pipeline lock, so the round trip waits inside msgx_commit_enter.
    const holder = new pg.Client(pgPoolConfig({ connectionString: PG_URL, schema: t.schema }));
    await holder.connect();
    const [cls, obj] = lockKeys(t.schema).pipeline;
    await holder.query("BEGIN");
    await holder.query("SELECT pg_advisory_xact_lock($1::integer, $2::integer)", [cls, obj]);
    const committing = t.store.commitRun({ ...emptyRunDecision, records: [one] }, { generation });
    const outcome = committing.catch((e: unknown) => e);
    let waiting: number | undefined;
    while (waiting === undefined) {
      const { rows } = await sql<{ pid: number }>`
        SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
          AND classid = ${cls >>> 0}::bigint::oid AND objid = ${obj >>> 0}::bigint::oid AND objsubid = 2`.execute(t.db);
      waiting = rows[0]?.pid;
    }
    await sql`SELECT pg_terminate_backend(${waiting}::integer)`.execute(t.db);
    expect(await outcome).toMatchObject({ kind: "COMMIT_UNKNOWN" });
    await holder.query("ROLLBACK");
    await holder.end();
    // The pool may still hold a connection that learns of the loss on its next query (the pump
    // takes that as an outage and steps again): the store recovers when a read answers.
    const recovered = async (): Promise<Awaited<ReturnType<typeof t.store.get>>> => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await t.store.get(1);
        } catch (e) {
          if (attempt >= 3 || !isMsgxError(e) || e.kind !== "DEPENDENCY_UNAVAILABLE") throw e;
        }
      }
    };
    expect((await recovered())?.status).toBe(ProcStatus.PENDING);
    await t.store.commitRun({ ...emptyRunDecision, records: [one] }, { generation });
    expect((await t.store.get(1))?.status).toBe(ProcStatus.SUCCEEDED);
    await t.reset();
  });

  it("maps a pipeline lock held past lock_timeout to DEPENDENCY_UNAVAILABLE (an outage, not a message fault)", async () => {
    const config = pgPoolConfig({ connectionString: PG_URL, schema: t.schema, lockTimeoutMs: 200, max: 2 });
    const pool = prepareHotStatements(guardPool(new pg.Pool(config)));
    const db = new Kysely<any>({ dialect: new PostgresDialect({ pool }) });
    const store = new PgPipelineStore(db, { lockNamespace: t.schema });
    const holder = new pg.Client(config);
    await holder.connect();
    const [cls, obj] = lockKeys(t.schema).pipeline;
    await holder.query("BEGIN");
    await holder.query("SELECT pg_advisory_xact_lock($1::integer, $2::integer)", [cls, obj]);
    await expect(store.transaction(async () => 1)).rejects.toMatchObject({ kind: "DEPENDENCY_UNAVAILABLE" });
    await holder.query("ROLLBACK");
    expect(await store.transaction(async () => 2)).toBe(2);
    await holder.end();
    await db.destroy();
  });

  it("migrates idempotently: a second run applies nothing and keeps the data", async () => {
    await t.store.enqueue([{ msgId: 7, receivedAt: T0 }], { horizon: 7 });
    const again = await migrateToLatest(t.db, { schema: t.schema, modules: HOST_MIGRATIONS });
    expect(again.results).toEqual([]);
    expect((await t.store.get(7))?.msgId).toBe(7);
    const versions = (await sql<{ name: string }>`SELECT name FROM msgx_migration ORDER BY name`.execute(t.db)).rows.map((r) => r.name);
    expect(versions).toEqual(Object.keys(msgxMigrations("public", HOST_MIGRATIONS)).sort());
    expect(versions.slice(0, 2)).toEqual(["0001_pipeline", "0002_flights"]);
    await t.reset();
  });
});
