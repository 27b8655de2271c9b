/**
 * A migration is history: a database that applied it must get exactly the same DDL from any later
 * release, however its text is produced. Each migration's statements (up and down, for one schema)
 * are recorded through a driver that runs nothing, and their SHA-256 is pinned here. A change to
 * how a migration's text is written must leave its fingerprint as it is; a new migration adds a line.
 */
import { createHash } from "node:crypto";
import { Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, type CompiledQuery, type DatabaseConnection, type Driver, type Migration } from "kysely";
import { describe, expect, it } from "vitest";
import { COLLECTION_TABLES, MIGRATION_MODULES } from "../src/index.js";
import { RELIABLE_MESSAGE_MIGRATIONS, reliableMessageConsumeLogMigration } from "../src/reliable/index.js";
import { TASK_ROUTING_MIGRATIONS, taskConsumeLogMigration, taskConsumeLogPurgeMigration } from "../src/tasks/index.js";

/** A kysely that records every statement it is given and answers each with no rows. */
function recordingDb(): { readonly db: Kysely<unknown>; readonly statements: string[] } {
  const statements: string[] = [];
  const connection: DatabaseConnection = {
    executeQuery: async <R>(q: CompiledQuery) => {
      statements.push(`${q.sql} ${JSON.stringify(q.parameters)}`);
      return { rows: [] as R[] };
    },
    // eslint-disable-next-line require-yield
    streamQuery: async function* () {
      throw new Error("not streamed");
    },
  };
  const driver: Driver = {
    init: async () => {},
    acquireConnection: async () => connection,
    beginTransaction: async () => {},
    commitTransaction: async () => {},
    rollbackTransaction: async () => {},
    releaseConnection: async () => {},
    destroy: async () => {},
  };
  const db = new Kysely<unknown>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => driver,
      createIntrospector: (k) => new PostgresIntrospector(k),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  });
  return { db, statements };
}

async function fingerprint(migration: Migration): Promise<string> {
  const { db, statements } = recordingDb();
  await migration.up(db);
  statements.push("-- down");
  await migration.down?.(db);
  return createHash("sha256").update(statements.join("\n")).digest("hex").slice(0, 16);
}

const EVERY_MIGRATION: Readonly<Record<string, (schema: string) => Migration>> = {
  ...Object.assign({}, ...Object.values(MIGRATION_MODULES)),
  ...TASK_ROUTING_MIGRATIONS.migrations,
  ...RELIABLE_MESSAGE_MIGRATIONS.migrations,
  "task-consume-log": taskConsumeLogMigration,
  "task-consume-log-purge": taskConsumeLogPurgeMigration,
  "reliable-message-consume-log": reliableMessageConsumeLogMigration,
};

/** The fingerprints of the released migrations, as first written. Never edit a line: add one. */
const RELEASED: Readonly<Record<string, string>> = {
  "0001_pipeline": "57af32453649574d",
  "0002_flights": "c1b845105ee32a21",
  "0003_requests_reference": "c637b8da45dbe05b",
  "0004_reader_indexes": "58a246f29e8559af",
  "0005_reliable_message": "380f56527cf3eed4",
  "0006_task_routing": "86e69cf11975314c",
  "0007_maintenance": "f215a94c320e614d",
  "0008_requests": "1e3a309bcfbdfefb",
  "0009_outbox_json": "d3a749ac8785ccfa",
  "0010_flight_collections": "dcb7c63be251bee0",
  "0011_reference_data": "cbe925f34be78a06",
  "0012_identity_content": "162da682d4d39adb",
  "0013_outbox_headers": "4f0167346a3d7d7d",
  "0014_proc_trace": "51c8e9bc79677c79",
  "0015_reliable_message_service": "5da841fd44713bf0",
  "0016_task_routing_service": "94d42660bdb34901",
  "0018_lineage": "5150721ef6fc2d4e",
  "0019_console": "85a90be415273246",
  "0020_leadership_lease": "562f6f708af05124",
  "0021_pipeline_enter": "11e6152d6adf3855",
  "0022_recent_flights": "e34ebe35b2fe49c8",
  "0023_reliable_message_deliver_at": "be5342114213a87b",
  "0024_task_numbers": "515e87d0d8e0ee4b",
  "0025_reliable_message_subscriptions": "4b50038ccf2a31b1",
  "0026_reliable_message_key_order": "1c7082e7aca9ca51",
  "0027_task_overdue": "bd3c571bbdb7a679",
  "0028_reliable_message_history": "e631742941e382f7",
  "0029_task_history": "8aa8db19da904c63",
  "0030_reliable_message_history_repeats": "441ed875d67c8520",
  "0031_task_history_repeats": "e533518dc28b02ac",
  "0032_state_generation": "bf9f9b63cd6552ef",
  "0033_sent_log": "7e6b8bdf5bb98fd6",
  "0034_commit_run_collections": "b8829c7982565532",
  "0035_commit_run_event_ids": "75ca094b45e9137f",
  "reliable-message-consume-log": "1b2a7c2b76ca4842",
  "task-consume-log": "56c7eae71b6bdfc4",
  "task-consume-log-purge": "2a937c732dcf50fe",
};

describe("msgx_commit_run (commitRun's one round trip)", () => {
  it("its latest definition rewrites every collection table, each only for the flights run->'rewrite' names: a collection added later needs a migration that replaces it", async () => {
    const { db, statements } = recordingDb();
    for (const [, make] of Object.entries(MIGRATION_MODULES.pipeline).sort(([a], [b]) => (a < b ? -1 : 1))) await make("msgx_s").up(db);
    const latest = statements.filter((s) => s.includes("FUNCTION msgx_commit_run(")).at(-1) ?? "";
    for (const [name, table] of Object.entries(COLLECTION_TABLES)) {
      expect(latest).toContain(`DELETE FROM ${table} WHERE flid IN (SELECT jsonb_array_elements_text(run->'rewrite'->'${name}'))`);
      expect(latest).toContain(`INSERT INTO ${table} (flid, seq_key, ord, row_values)`);
    }
  });
});

describe("migration DDL is history", () => {
  it("every migration produces the statements it was released with", async () => {
    const now: Record<string, string> = {};
    for (const [name, make] of Object.entries(EVERY_MIGRATION).sort(([a], [b]) => (a < b ? -1 : 1))) now[name] = await fingerprint(make("msgx_s"));
    expect(now).toEqual(RELEASED);
  });
});
