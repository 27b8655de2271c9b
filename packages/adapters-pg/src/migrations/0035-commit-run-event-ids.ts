import type { Kysely, Migration } from "kysely";
import { runDdl } from "./ddl.js";
import { COLLECTIONS_0032, commitRunFunction } from "./0032-state-generation.js";
import { rewriteOnly } from "./0034-commit-run-collections.js";

/**
 * `msgx_commit_run` returns the ids its run's events were given (ascending, in the run's order),
 * so the pump can hand the committed events to the relay of its own process without the relay
 * reading them back (`CommittedEvents` in core). A function's result type cannot be replaced in
 * place: it is dropped and created again, in this migration's transaction.
 */
const SIGNATURE = "msgx_commit_run(integer, integer, bigint, bigint, text[], bigint[], jsonb)";

const UP = [`DROP FUNCTION ${SIGNATURE}`, commitRunFunction("CREATE FUNCTION", COLLECTIONS_0032, rewriteOnly, "event ids")];

const DOWN = [`DROP FUNCTION ${SIGNATURE}`, commitRunFunction("CREATE FUNCTION", COLLECTIONS_0032, rewriteOnly)];

export const commitRunEventIdsMigration = (schema: string): Migration => ({
  up: (db: Kysely<unknown>) => runDdl(db, schema, UP),
  down: (db: Kysely<unknown>) => runDdl(db, schema, DOWN),
});
