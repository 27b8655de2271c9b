import type { Kysely, Migration } from "kysely";
import { runDdl } from "./ddl.js";

/** The SQLSTATE `msgx_commit_enter` raises when the state generation moved on; mapped to `StaleRunError`. */
export const STALE_GENERATION_SQLSTATE = "MXS01";
/** The SQLSTATE `msgx_commit_enter` raises when keys a run binds as new are bound to other messages. */
export const BOUND_KEYS_SQLSTATE = "MXS02";

/**
 * The state generation (`PipelineStore.loadRunState`): one row, so that reading it is one index
 * probe and moving it on locks nothing an intake or a reader waits for (the leadership row and
 * `intake_state` are written by others, and may not exist yet). Moved on under the pipeline lock only.
 *
 * - `msgx_pipeline_enter(…, bump)`: `msgx_pipeline_enter` (0021), then, given `bump`, the
 *   generation moved on in the same transaction. The three-argument form stays for released callers.
 * - `msgx_commit_enter`: the pipeline lock and fence (as `msgx_pipeline_enter`), then the
 *   generation check (`MXS01`, the current generation in DETAIL) and the check that no key the run
 *   binds as new is bound to another message (`MXS02`, the keys as a JSON array in DETAIL). The
 *   first statement of `commitRun`'s round trip: the writes after it run only when both hold.
 * - `msgx_expect_rows`: fails the statement (P0001) when a part wrote fewer rows than asked, so a
 *   round trip whose results are not read still refuses a shortfall.
 */
const UP = [
  `CREATE TABLE pipeline_generation (
    id smallint PRIMARY KEY DEFAULT 1 CHECK (id = 1),
    generation bigint NOT NULL DEFAULT 0
  )`,
  `INSERT INTO pipeline_generation (id, generation) VALUES (1, 0)`,
  `CREATE FUNCTION msgx_pipeline_enter(lock_class integer, lock_obj integer, fence bigint, bump boolean) RETURNS bigint
    LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $fn$
    DECLARE current_epoch bigint;
    BEGIN
      current_epoch := msgx_pipeline_enter(lock_class, lock_obj, fence);
      IF bump THEN
        UPDATE pipeline_generation SET generation = generation + 1 WHERE id = 1;
      END IF;
      RETURN current_epoch;
    END
  $fn$`,
  `CREATE FUNCTION msgx_commit_enter(lock_class integer, lock_obj integer, fence bigint, expected_generation bigint, new_keys text[], new_owners bigint[])
    RETURNS bigint LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $fn$
    DECLARE current_generation bigint; bound text[];
    BEGIN
      PERFORM msgx_pipeline_enter(lock_class, lock_obj, fence);
      SELECT g.generation INTO current_generation FROM pipeline_generation g WHERE g.id = 1;
      IF NOT FOUND THEN
        RAISE EXCEPTION 'pipeline_generation has lost its row: restore it (id 1) before the pipeline writes again';
      END IF;
      IF current_generation IS DISTINCT FROM expected_generation THEN
        RAISE EXCEPTION 'state generation is %, the run was decided at %', current_generation, expected_generation
          USING ERRCODE = '${STALE_GENERATION_SQLSTATE}', DETAIL = current_generation::text;
      END IF;
      SELECT array_agg(m.identity_key ORDER BY m.identity_key) INTO bound
        FROM unnest(new_keys, new_owners) AS x(identity_key, msg_id)
        JOIN msg_identity m ON m.identity_key = x.identity_key AND m.msg_id <> x.msg_id;
      IF bound IS NOT NULL THEN
        RAISE EXCEPTION 'identities bound to other messages: %', array_to_string(bound, ', ')
          USING ERRCODE = '${BOUND_KEYS_SQLSTATE}', DETAIL = array_to_json(bound)::text;
      END IF;
      RETURN current_generation;
    END
  $fn$`,
  `CREATE FUNCTION msgx_expect_rows(part text, written bigint, expected bigint) RETURNS boolean
    LANGUAGE plpgsql VOLATILE AS $fn$
    BEGIN
      IF written <> expected THEN
        RAISE EXCEPTION '%: % of % rows written (the state changed since the run was decided)', part, written, expected;
      END IF;
      RETURN TRUE;
    END
  $fn$`,
];

const DOWN = [
  `DROP FUNCTION msgx_expect_rows(text, bigint, bigint)`,
  `DROP FUNCTION msgx_commit_enter(integer, integer, bigint, bigint, text[], bigint[])`,
  `DROP FUNCTION msgx_pipeline_enter(integer, integer, bigint, boolean)`,
  `DROP TABLE pipeline_generation`,
];

export const stateGenerationMigration = (schema: string): Migration => ({
  up: (db: Kysely<unknown>) => runDdl(db, schema, UP),
  down: (db: Kysely<unknown>) => runDdl(db, schema, DOWN),
});
