import { ALL_MIGRATION_MODULES, createPgStores, migrateToLatest } from "@msgx/adapters-pg";
import { sql, type Kysely } from "kysely";
import { TASK_ROUTING_MIGRATIONS, taskConsumeLogMigration } from "./task-routing.js";

/**
 * A pool on `schema` (created when missing) with msgx's timeouts and search path, through the
 * adapter's own `createPgStores` (which loads the `pg` driver). `close` ends the pool.
 */
export async function openDb(pgUrl: string, schema: string, max = 6): Promise<{ readonly db: Kysely<any>; close(): Promise<void> }> {
  const handle = await createPgStores({ connectionString: pgUrl, schema, max, migrate: false, applicationName: `msgx-example-${schema}` });
  await sql`CREATE SCHEMA IF NOT EXISTS ${sql.id(schema)}`.execute(handle.db);
  return { db: handle.db, close: () => handle.close() };
}

const exists = async (db: Kysely<any>, table: string): Promise<boolean> => {
  const { rows } = await sql<{ t: string | null }>`SELECT to_regclass(${table})::text AS t`.execute(db);
  return rows[0]?.t !== null && rows[0]?.t !== undefined;
};

/**
 * The task service's schema: the msgx tables (with `msg_event`, the relay's outbox) and the task
 * tables, which come from the `@msgx/adapters-pg/tasks` set.
 */
export async function migrateTaskService(db: Kysely<any>, schema: string): Promise<void> {
  await migrateToLatest(db, { schema, modules: [...ALL_MIGRATION_MODULES, TASK_ROUTING_MIGRATIONS] });
}

/**
 * The LMS schema: the consume log (the owner's own migration) and LMS's business tables, reduced
 * from the seed: stock points (备货位: `ivt_status`, `vehicle_code`), slitting plans
 * (`is_paper_ok`), the slitter's AGV jobs, and a business log.
 */
export async function migrateLms(db: Kysely<any>, schema: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`SET LOCAL search_path TO ${sql.id(schema)}`.execute(trx);
    if (!(await exists(trx, "task_event_consume_log"))) await taskConsumeLogMigration(schema).up(trx);
    await sql`CREATE TABLE IF NOT EXISTS lms_stock_point (
      point_code   text PRIMARY KEY,
      ivt_status   text NOT NULL CHECK (ivt_status IN ('EMPTY', 'FULL', 'LOCKED')),
      vehicle_code text,
      updated_by   text
    )`.execute(trx);
    await sql`CREATE TABLE IF NOT EXISTS lms_slitting_plan (
      material_code text PRIMARY KEY,
      is_paper_ok   boolean NOT NULL DEFAULT false,
      updated_by    text
    )`.execute(trx);
    await sql`CREATE TABLE IF NOT EXISTS lms_slitter_job (
      biz_id     text PRIMARY KEY,
      status     text NOT NULL CHECK (status IN ('WAITING', 'DOWN', 'CANCELLED')),
      updated_by text
    )`.execute(trx);
    await sql`CREATE TABLE IF NOT EXISTS lms_biz_log (
      log_id       bigserial PRIMARY KEY,
      task_id      text NOT NULL,
      handler_code text NOT NULL,
      event_type   text NOT NULL,
      detail       text NOT NULL,
      at           timestamptz NOT NULL DEFAULT now()
    )`.execute(trx);
  });
}
