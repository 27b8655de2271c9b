/**
 * Migrations as per-module sets: a user who wants only the pipeline gets only its tables, a module
 * added later applies on a database migrated with fewer, the default is the flight exchange's
 * modules, the task and reliable-message sets come from their subpaths, and every set keeps the
 * version names deployed databases already hold.
 */
import { Kysely, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ALL_MIGRATION_MODULES, MIGRATION_MODULES, MIGRATION_TABLE, migrateToLatest, msgxMigrations, PGliteDialect, type PGliteLike } from "../src/index.js";
import { RELIABLE_MESSAGE_MIGRATIONS } from "../src/reliable/index.js";
import { TASK_ROUTING_MIGRATIONS } from "../src/tasks/index.js";
import { HOST_MIGRATIONS, randomSchema } from "./pg-harness.js";

const tables = async (db: Kysely<any>, schema: string): Promise<string[]> =>
  (
    await sql<{ name: string }>`SELECT table_name AS name FROM information_schema.tables
      WHERE table_schema = ${schema} AND table_type = 'BASE TABLE' AND table_name NOT LIKE 'msgx_migration%' ORDER BY 1`.execute(db)
  ).rows.map((r) => r.name);

const applied = async (db: Kysely<any>, schema: string): Promise<string[]> =>
  (await sql<{ name: string }>`SELECT name FROM ${sql.table(`${schema}.${MIGRATION_TABLE}`)} ORDER BY name`.execute(db)).rows.map((r) => r.name);

describe("migration modules (PGlite)", () => {
  let pglite: PGliteLike;
  let db: Kysely<any>;
  beforeAll(async () => {
    const { PGlite } = await import("@electric-sql/pglite");
    pglite = (await PGlite.create()) as unknown as PGliteLike;
    db = new Kysely<any>({ dialect: new PGliteDialect({ pglite }) });
  });
  afterAll(() => pglite.close());

  it("keeps every released version name, each in exactly one module or subpath set", () => {
    const sets = [...Object.values(MIGRATION_MODULES), TASK_ROUTING_MIGRATIONS.migrations, RELIABLE_MESSAGE_MIGRATIONS.migrations];
    const names = sets.flatMap((m) => Object.keys(m));
    expect(new Set(names).size).toBe(names.length);
    expect(names.sort()).toEqual([
      "0001_pipeline",
      "0002_flights",
      "0003_requests_reference",
      "0004_reader_indexes",
      "0005_reliable_message",
      "0006_task_routing",
      "0007_maintenance",
      "0008_requests",
      "0009_outbox_json",
      "0010_flight_collections",
      "0011_reference_data",
      "0012_identity_content",
      "0013_outbox_headers",
      "0014_proc_trace",
      "0015_reliable_message_service",
      "0016_task_routing_service",
      "0018_lineage",
      "0019_console",
      "0020_leadership_lease",
      "0021_pipeline_enter",
      "0022_recent_flights",
      "0023_reliable_message_deliver_at",
      "0024_task_numbers",
      "0025_reliable_message_subscriptions",
      "0026_reliable_message_key_order",
      "0027_task_overdue",
      "0028_reliable_message_history",
      "0029_task_history",
      "0030_reliable_message_history_repeats",
      "0031_task_history_repeats",
      "0032_state_generation",
      "0033_sent_log",
      "0034_commit_run_collections",
      "0035_commit_run_event_ids",
    ]);
    expect(Object.keys(msgxMigrations("public", HOST_MIGRATIONS))).toEqual(names);
    expect(Object.keys(msgxMigrations("public"))).toEqual(names.filter((n) => !/^00(05|06|15|16|23|24|25|26|27|28|29|30|31)_/.test(n)));
    expect(Object.keys(msgxMigrations("public", ["jobs"]))).toEqual(["0001_pipeline", "0002_flights", "0004_reader_indexes", "0007_maintenance", "0009_outbox_json", "0010_flight_collections", "0012_identity_content", "0013_outbox_headers", "0014_proc_trace", "0018_lineage", "0019_console", "0020_leadership_lease", "0021_pipeline_enter", "0022_recent_flights", "0032_state_generation", "0033_sent_log", "0034_commit_run_collections", "0035_commit_run_event_ids"]);
  });

  it("pipeline only: its tables alone; requests added later apply; then the rest; the default is the flight modules", async () => {
    const schema = randomSchema();
    await migrateToLatest(db, { schema, modules: ["pipeline"] });
    const pipeline = await tables(db, schema);
    expect(pipeline).toContain("proc_state");
    expect(pipeline).toContain("flight_vipt");
    expect(pipeline).not.toContain("req_track");
    expect(pipeline).not.toContain("reliable_message");
    expect(pipeline).not.toContain("flight_schd_hst");
    expect(pipeline).toContain("runner_presence");
    expect(pipeline).toContain("pipeline_generation");
    expect(pipeline).toContain("msg_event_sent");
    expect(pipeline).toHaveLength(26);
    expect(await applied(db, schema)).toEqual(Object.keys(MIGRATION_MODULES.pipeline).sort());

    // 0003, 0008 and 0011 sort before 0012, which is applied: they still run.
    const more = await migrateToLatest(db, { schema, modules: ["pipeline", "requests"] });
    expect(more.results?.map((r) => [r.migrationName, r.status])).toEqual([
      ["0003_requests_reference", "Success"],
      ["0008_requests", "Success"],
      ["0011_reference_data", "Success"],
    ]);
    expect(await tables(db, schema)).toEqual([...pipeline, "ref_master", "req_counter", "req_track"].sort());
    const ref = await sql<{ name: string }>`SELECT column_name AS name FROM information_schema.columns WHERE table_schema = ${schema} AND table_name = 'ref_master' AND column_name IN ('fields', 'version') ORDER BY 1`.execute(db);
    expect(ref.rows.map((r) => r.name)).toEqual(["fields", "version"]);

    // A caller naming fewer modules than the database has leaves the others alone.
    expect((await migrateToLatest(db, { schema, modules: ["pipeline"] })).results).toEqual([]);

    await migrateToLatest(db, { schema });
    expect(await applied(db, schema)).toEqual(Object.keys(msgxMigrations(schema)));
    const flights = await tables(db, schema);
    expect(flights.filter((t) => /^(task_|reliable_)/.test(t))).toEqual([]);
    const full = randomSchema();
    await migrateToLatest(db, { schema: full, modules: ALL_MIGRATION_MODULES });
    expect(flights).toEqual(await tables(db, full));

    // The runner's list adds the subpaths' sets to a flight database: their versions sort before
    // applied ones and still run.
    const hosted = await migrateToLatest(db, { schema, modules: HOST_MIGRATIONS });
    expect(hosted.results?.map((r) => r.migrationName)).toEqual(["0005_reliable_message", "0006_task_routing", "0015_reliable_message_service", "0016_task_routing_service", "0023_reliable_message_deliver_at", "0024_task_numbers", "0025_reliable_message_subscriptions", "0026_reliable_message_key_order", "0027_task_overdue", "0028_reliable_message_history", "0029_task_history", "0030_reliable_message_history_repeats", "0031_task_history_repeats"]);
    expect(await tables(db, schema)).toEqual([...flights, "reliable_message", "reliable_message_history", "reliable_message_subscription", "task_callback", "task_feedback", "task_history", "task_no_seq", "task_replay", "task_task"].sort());
  });

  it("a database migrated by 0.1.x's list (every version in one list) is accepted by a flight-only caller and by the runner's list, and nothing runs again", async () => {
    const schema = randomSchema();
    // 0.1.x applied the subpaths' versions as part of its default list: the same names, the same DDL.
    await migrateToLatest(db, { schema, modules: HOST_MIGRATIONS });
    const before = await tables(db, schema);
    const names = await applied(db, schema);
    expect(names).toEqual(Object.keys(msgxMigrations(schema, HOST_MIGRATIONS)));
    expect((await migrateToLatest(db, { schema })).results).toEqual([]);
    expect((await migrateToLatest(db, { schema, modules: ["pipeline"] })).results).toEqual([]);
    expect((await migrateToLatest(db, { schema, modules: [TASK_ROUTING_MIGRATIONS] })).results).toEqual([]);
    expect((await migrateToLatest(db, { schema, modules: HOST_MIGRATIONS })).results).toEqual([]);
    expect(await applied(db, schema)).toEqual(names);
    expect(await tables(db, schema)).toEqual(before);
  });
});
