import { sql, type ColumnType, type Kysely } from "kysely";
import type { Timestamp } from "../rows/column-types.js";
import { createUpstreamTable, type UpstreamTableColumns } from "./upstream-table.js";

/** A `cminmsgs` row, as `createPgMailboxTable` creates it. */
export interface CminmsgsTable extends UpstreamTableColumns {
  date_received: ColumnType<Date, Date | undefined, Date>;
  date_processed: Timestamp | null;
  subsystem_name: string | null;
  subsystem_sequence: number | null;
  subsystem_date_sent: string | null;
  subsystem_type: string | null;
  subsystem_subtype: string | null;
  status: ColumnType<string, string | undefined, string>;
}

/** The embedded mailbox under its default name (another `table` is the caller's to type). */
export interface EmbeddedMailboxDatabase {
  cminmsgs: CminmsgsTable;
}

/**
 * The embedded runner's mailbox: a `CMINMSGS`-shaped table in our own PostgreSQL/PGlite, for when
 * there is no shared MySQL mailbox (development, demos, the embedded default). Same columns and
 * widths as the upstream table (WIRE.md).
 */
export async function createPgMailboxTable<DB>(db: Kysely<DB>, table = "cminmsgs"): Promise<void> {
  await createUpstreamTable(db, table, sql`
      date_received       timestamptz NOT NULL DEFAULT now(),
      date_processed      timestamptz NULL,
      subsystem_name      varchar(4) NULL,
      subsystem_sequence  integer NULL,
      subsystem_date_sent varchar(19) NULL,
      subsystem_type      varchar(4) NULL,
      subsystem_subtype   varchar(4) NULL,
      status              varchar(16) NOT NULL DEFAULT 'VALID'`);
  // The DTTM is written as the upstream's DATETIME text (YYYY-MM-DD HH:MM:SS): a table made when it
  // was kept as its 14 digits is widened once (no lock taken on a table that is wide already).
  const width = await sql<{ width: number | null }>`
    SELECT character_maximum_length AS width FROM information_schema.columns
    WHERE table_schema = current_schema() AND table_name = ${table} AND column_name = 'subsystem_date_sent'`.execute(db);
  if ((width.rows[0]?.width ?? 19) < 19) await sql`ALTER TABLE ${sql.table(table)} ALTER COLUMN subsystem_date_sent TYPE varchar(19)`.execute(db);
}
