import type { Kysely, Migration } from "kysely";
import { runDdl } from "./ddl.js";
import { COLLECTIONS_0032, commitRunFunction } from "./0032-state-generation.js";

/**
 * `msgx_commit_run` rewrites only the collections a run changed. `commitRunJson` names them in
 * `run->'rewrite'` (collection → FLIDs), worked out against the flights the leader decided from
 * (`CommitRunOptions.stored`, exact at the generation the call checks): a FLOP that moves a gate
 * rewrites `flight_gtdt` and leaves the twelve other tables alone, where 0032 deleted and inserted
 * every collection row of the flight. A run without `rewrite` (a caller built before it) rewrites
 * every collection of each changed flight, as 0032 did.
 */
export const rewriteOnly = (name: string, table: string) => `        IF NOT run ? 'rewrite' THEN
          DELETE FROM ${table} WHERE flid = ANY(changed);
        ELSIF run->'rewrite' ? '${name}' THEN
          DELETE FROM ${table} WHERE flid IN (SELECT jsonb_array_elements_text(run->'rewrite'->'${name}'));
        END IF;`;

const UP = [commitRunFunction("CREATE OR REPLACE FUNCTION", COLLECTIONS_0032, rewriteOnly)];

const DOWN = [commitRunFunction("CREATE OR REPLACE FUNCTION", COLLECTIONS_0032, (_, table) => `        DELETE FROM ${table} WHERE flid = ANY(changed);`)];

export const commitRunCollectionsMigration = (schema: string): Migration => ({
  up: (db: Kysely<unknown>) => runDdl(db, schema, UP),
  down: (db: Kysely<unknown>) => runDdl(db, schema, DOWN),
});
