import { gateService, ManualClock } from "@msgx/core/testing";
import { sql, type Kysely, type Transaction } from "kysely";
import { afterAll, beforeAll, describe } from "vitest";
// Not in the @msgx/core/testing barrel yet: imported by path until the export lines are added.
import { describeTaskConsumeLogStoreContract } from "../../tasks/src/task-consume-log-store.contract.js";
import { describeTaskStoreContract } from "../../tasks/src/task-store.contract.js";
import { PgOutboxStore } from "../src/index.js";
import { PgTaskConsumeLogStore } from "../src/tasks/pg-task-consume-log-store.js";
import { PgTaskStore } from "../src/tasks/pg-task-store.js";
import { taskConsumeLogMigration, taskRoutingMigration } from "../src/tasks/0006-task-routing.js";
import { taskConsumeLogPurgeMigration } from "../src/tasks/0017-task-consume-log-purge.js";
import { freshPgSchema, probePostgres, SharedPglite } from "./pg-harness.js";

const gate = await gateService("PostgreSQL", "adapters-pg: task-routing store contracts", probePostgres);

/** Applies the task-routing migrations unless the main list already did (once it is registered there). */
async function migrateTaskRouting(db: Kysely<any>, schema: string): Promise<void> {
  const { rows } = await sql<{ t: string | null }>`SELECT to_regclass('task_task')::text AS t`.execute(db);
  if (rows[0]?.t === null || rows[0]?.t === undefined) await db.transaction().execute((trx) => taskRoutingMigration(schema).up(trx));
  await db.transaction().execute(async (trx) => {
    await taskConsumeLogMigration(schema).up(trx);
    await taskConsumeLogPurgeMigration(schema).up(trx);
    await sql`CREATE TABLE lms_marker (k text PRIMARY KEY)`.execute(trx);
  });
}

/** Every outbox row, ascending, read through the relay's own store. */
async function outboxRows(db: Kysely<any>) {
  const { rows } = await sql<{ event_id: string }>`SELECT event_id FROM msg_event ORDER BY event_id`.execute(db);
  return new PgOutboxStore(db).get(rows.map((r) => Number(r.event_id)));
}

const consumeSubject = (db: Kysely<any>, close: () => Promise<void>) => ({
  store: new PgTaskConsumeLogStore(db),
  writeMarker: async (tx: Transaction<any>, key: string) => {
    await sql`INSERT INTO lms_marker (k) VALUES (${key})`.execute(tx);
  },
  markers: async () => (await sql<{ k: string }>`SELECT k FROM lms_marker ORDER BY k COLLATE "C"`.execute(db)).rows.map((r) => r.k),
  close,
});

describe.skipIf(!gate.available)("task routing on PostgreSQL", () => {
  describeTaskStoreContract("PgTaskStore (PostgreSQL, fresh schema per test)", async () => {
    const clock = new ManualClock();
    const t = await freshPgSchema({ clock, max: 6 });
    await migrateTaskRouting(t.db, t.schema);
    return { store: new PgTaskStore(t.db, { clock }), bumpEpoch: t.bumpEpoch, outboxEvents: () => outboxRows(t.db), close: t.close };
  });

  describeTaskConsumeLogStoreContract<Transaction<any>>("PgTaskConsumeLogStore (PostgreSQL, fresh schema per test)", async () => {
    const t = await freshPgSchema({ max: 4 });
    await migrateTaskRouting(t.db, t.schema);
    return consumeSubject(t.db, t.close);
  });
});

describe("task routing on PGlite", () => {
  const pglite = new SharedPglite();
  beforeAll(() => pglite.open());
  afterAll(() => pglite.close());
  describeTaskStoreContract("PgTaskStore (PGlite in memory, fresh schema per test)", async () => {
    const clock = new ManualClock();
    const t = await pglite.freshSchema({ clock });
    await migrateTaskRouting(t.db, t.schema);
    return { store: new PgTaskStore(t.db, { clock }), bumpEpoch: t.bumpEpoch, outboxEvents: () => outboxRows(t.db), close: t.close };
  });
  describeTaskConsumeLogStoreContract<Transaction<any>>("PgTaskConsumeLogStore (PGlite in memory, fresh schema per test)", async () => {
    const t = await pglite.freshSchema();
    await migrateTaskRouting(t.db, t.schema);
    return consumeSubject(t.db, t.close);
  });
});
