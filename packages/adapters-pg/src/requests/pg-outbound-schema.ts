import { sql, type ColumnType, type Kysely } from "kysely";
import { createUpstreamTable, type UpstreamTableColumns } from "../mailbox/upstream-table.js";
import type { Timestamp } from "../rows/column-types.js";

/** A `coutmsgs` row, as `createPgOutboundTable` creates it. */
export interface CoutmsgsTable extends UpstreamTableColumns {
  routingid: string;
  date_inserted: ColumnType<Date, Date | undefined, Date>;
  date_sent: Timestamp | null;
  ack_status: string | null;
  ack_text: string | null;
  date_ack: Timestamp | null;
}

/** The embedded outbound mailbox under its default name. */
export interface EmbeddedOutboundDatabase {
  coutmsgs: CoutmsgsTable;
}

/**
 * The embedded runner's outbound mailbox: a `COUTMSGS`-shaped table in our own PostgreSQL/PGlite,
 * beside the embedded `cminmsgs`, for when there is no shared MySQL mailbox. Same columns as the
 * upstream table (WIRE.md); like `cminmsgs` it stands in for the upstream's table, so it is created
 * here and not by the migrations.
 */
export async function createPgOutboundTable<DB>(db: Kysely<DB>, table = "coutmsgs"): Promise<void> {
  await createUpstreamTable(db, table, sql`
      routingid     varchar(16) NOT NULL,
      date_inserted timestamptz NOT NULL DEFAULT clock_timestamp(),
      date_sent     timestamptz NULL,
      ack_status    varchar(16) NULL,
      ack_text      varchar(255) NULL,
      date_ack      timestamptz NULL`);
  await sql`CREATE INDEX IF NOT EXISTS ${sql.id(`${table}_routing_idx`)} ON ${sql.table(table)} (routingid, date_inserted)`.execute(db);
}
