import type { Kysely, Migration } from "kysely";
import { runDdl } from "./ddl.js";

/**
 * The operations console's data (issue 23, docs/operations.md "Console data"):
 * - `runner_presence`: one row per running runner (leader or standby), upserted by its heartbeat
 *   with the database clock (`seen_at = now()`), deleted on a clean stop. `epoch` is the fence of
 *   a leader's leadership, NULL for a standby.
 * - The minute counts of `/admin/status/history` read terminal records and sent events by time:
 *   `proc_state` has `proc_state_terminal_age_idx` (0007); its archive and the outbox get one each.
 *   The outbox's holds sent rows only, so the relay's pending and dead reads never pay for it.
 * - Flight search by flight number, a case-insensitive prefix: an index on `upper(flno)` in the
 *   "C" collation (SODT and FLID too), which serves `LIKE 'CA12%'` as a range and the answer's
 *   order (code points, the fake's) without a sort.
 */
const UP = [
  `CREATE TABLE runner_presence (
    runner_id  text        PRIMARY KEY,
    host       text        NOT NULL,
    pid        integer     NOT NULL,
    role       text        NOT NULL CHECK (role IN ('leader','standby')),
    epoch      bigint,
    started_at timestamptz NOT NULL,
    seen_at    timestamptz NOT NULL
  )`,
  `CREATE INDEX proc_state_hst_updated_idx ON proc_state_hst (updated_at)`,
  `CREATE INDEX msg_event_sent_at_idx ON msg_event (sent_at) WHERE sent_at IS NOT NULL`,
  `CREATE INDEX flight_schd_flno_search_idx ON flight_schd ((upper(flno) COLLATE "C"), sodt COLLATE "C", flid COLLATE "C")`,
];

const DOWN = [
  "DROP INDEX flight_schd_flno_search_idx",
  "DROP INDEX msg_event_sent_at_idx",
  "DROP INDEX proc_state_hst_updated_idx",
  "DROP TABLE runner_presence",
];

export const consoleMigration = (schema: string): Migration => ({
  up: (db: Kysely<unknown>) => runDdl(db, schema, UP),
  down: (db: Kysely<unknown>) => runDdl(db, schema, DOWN),
});
