import type { Kysely, Migration } from "kysely";
import { runDdl } from "./ddl.js";

/** The SQLSTATE `msgx_commit_enter` raises when the state generation moved on; mapped to `StaleRunError`. */
export const STALE_GENERATION_SQLSTATE = "MXS01";
/** The SQLSTATE `msgx_commit_enter` raises when keys a run binds as new are bound to other messages. */
export const BOUND_KEYS_SQLSTATE = "MXS02";
/** The SQLSTATE `msgx_commit_run` raises when the run is not the unfinished records from the head. */
export const NOT_AT_HEAD_SQLSTATE = "MXS03";

/**
 * The collections and their tables as they were when this migration was released (a literal, not
 * `COLLECTION_TABLES`: a released migration never changes).
 */
export const COLLECTIONS_0032: readonly (readonly [string, string])[] = [
  ["ROUT", "flight_rout"],
  ["ERUT", "flight_erut"],
  ["PSDT", "flight_psdt"],
  ["GTDT", "flight_gtdt"],
  ["CKDT", "flight_ckdt"],
  ["CLDT", "flight_cldt"],
  ["CHDT", "flight_chdt"],
  ["DELY", "flight_dely"],
  ["CHOT", "flight_chot"],
  ["ABTM", "flight_abtm"],
  ["SRVT", "flight_srvt"],
  ["VIPF", "flight_vipf"],
  ["VIPT", "flight_vipt"],
];

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
 * - `msgx_commit_run`: `commitRun` in one call. `msgx_commit_enter`, then the writes of
 *   `PipelineTx.applyRun` and the run's audits, each from a member of `run` (jsonb, built by
 *   `commitRunJson`); every collection of a changed flight is rewritten. It names each collection
 *   table: a collection added later needs a migration that replaces this function.
 * - `msgx_expect_rows`: fails the statement (P0001) when a part wrote fewer rows than asked, so a
 *   round trip whose results are not read still refuses a shortfall.
 */
/**
 * The text of `msgx_commit_run` over `collections` (name, table), each collection's rows of the
 * changed flights deleted by `deleteRows` before the run's rows are inserted. 0032 released it
 * deleting every collection of every changed flight and returning nothing; later migrations replace
 * it through here. `returns` `"event ids"` (0035): the ids the run's events were given, ascending.
 */
export function commitRunFunction(
  create: "CREATE FUNCTION" | "CREATE OR REPLACE FUNCTION",
  collections: readonly (readonly [string, string])[],
  deleteRows: (name: string, table: string) => string,
  returns: "void" | "event ids" = "void",
): string {
  const ids = returns === "event ids";
  return `${create} msgx_commit_run(lock_class integer, lock_obj integer, fence bigint, expected_generation bigint,
      new_keys text[], new_owners bigint[], run jsonb) RETURNS ${ids ? "bigint[]" : "void"}
    LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $fn$
    DECLARE
      n bigint;${ids ? "\n      event_ids bigint[] := '{}';" : ""}
      now_ts timestamptz := to_timestamp((run->>'now')::bigint / 1000.0);
      changed text[] := ARRAY(SELECT jsonb_array_elements_text(run->'flids'));
    BEGIN
      PERFORM msgx_commit_enter(lock_class, lock_obj, fence, expected_generation, new_keys, new_owners);
      IF jsonb_array_length(run->'records') > 0 THEN
        -- The run must be the unfinished records up to its highest id (two probes of proc_state_unfinished_idx).
        SELECT count(*) INTO n FROM proc_state p
          WHERE p.status IN ('PENDING','FAILED') AND p.msg_id <= (SELECT max((x->>'msg_id')::bigint) FROM jsonb_array_elements(run->'records') x);
        IF n <> jsonb_array_length(run->'records') OR n <> (SELECT count(*) FROM proc_state p
            JOIN jsonb_to_recordset(run->'records') AS x(msg_id bigint) ON p.msg_id = x.msg_id
            WHERE p.status IN ('PENDING','FAILED')) THEN
          RAISE EXCEPTION 'the run is not the unfinished records from the head'
            USING ERRCODE = '${NOT_AT_HEAD_SQLSTATE}';
        END IF;
      END IF;
      IF jsonb_array_length(run->'records') > 0 THEN
        UPDATE proc_state p SET
          status = x.status, attempts = x.attempts, next_attempt_at = to_timestamp(x.next_attempt_at / 1000.0),
          head_since = to_timestamp(x.head_since / 1000.0), identity_key = x.identity_key, meta = x.meta,
          error_class = x.error_class, reason = x.reason, history = x.history,
          received_at = to_timestamp(x.received_at / 1000.0), updated_at = to_timestamp(x.updated_at / 1000.0)
        FROM jsonb_to_recordset(run->'records') AS x(
          msg_id bigint, status text, attempts integer, next_attempt_at bigint, head_since bigint,
          identity_key text, meta jsonb, error_class text, reason text, history jsonb, received_at bigint, updated_at bigint)
        WHERE p.msg_id = x.msg_id;
        GET DIAGNOSTICS n = ROW_COUNT;
        PERFORM msgx_expect_rows('upd_proc_state', n, jsonb_array_length(run->'records'));
      END IF;
      IF jsonb_array_length(run->'fresh') > 0 THEN
        INSERT INTO msg_identity (identity_key, msg_id, bound_at, content_hash)
        SELECT x.identity_key, x.msg_id, now_ts, x.content_hash
        FROM jsonb_to_recordset(run->'fresh') AS x(identity_key text, msg_id bigint, content_hash text)
        WHERE NOT EXISTS (SELECT 1 FROM msg_identity m WHERE m.identity_key = x.identity_key AND m.msg_id = x.msg_id);
      END IF;
      IF jsonb_array_length(run->'moves') > 0 THEN
        UPDATE msg_identity m SET msg_id = x.msg_id, bound_at = now_ts, content_hash = x.content_hash
        FROM jsonb_to_recordset(run->'moves') AS x(identity_key text, msg_id bigint, content_hash text, replaces bigint)
        WHERE m.identity_key = x.identity_key AND m.msg_id = x.replaces;
        GET DIAGNOSTICS n = ROW_COUNT;
        PERFORM msgx_expect_rows('mov_msg_identity', n, jsonb_array_length(run->'moves'));
      END IF;
      IF cardinality(changed) > 0 THEN
        INSERT INTO flight_schd (flid, ffid, operation_day, state_version, last_msg_id, last_src_dttm, deleted,
                                 scalars, collections_known, updated_at)
        SELECT x.flid, x.ffid, x.operation_day, x.state_version, x.last_msg_id, x.last_src_dttm, x.deleted,
               x.scalars, ARRAY(SELECT jsonb_array_elements_text(x.collections_known)), now_ts
        FROM jsonb_to_recordset(run->'flights') AS x(
          flid text, ffid text, operation_day text, state_version bigint, last_msg_id bigint, last_src_dttm text,
          deleted boolean, scalars jsonb, collections_known jsonb)
        ON CONFLICT (flid) DO UPDATE SET
          ffid = EXCLUDED.ffid, operation_day = EXCLUDED.operation_day, state_version = EXCLUDED.state_version,
          last_msg_id = EXCLUDED.last_msg_id, last_src_dttm = EXCLUDED.last_src_dttm, deleted = EXCLUDED.deleted,
          scalars = EXCLUDED.scalars, collections_known = EXCLUDED.collections_known, updated_at = EXCLUDED.updated_at;
${collections.map(([name, table]) => deleteRows(name, table)).join("\n")}
      END IF;
${collections.map(
    ([name, table]) => `      IF run->'colls' ? '${name}' THEN
        INSERT INTO ${table} (flid, seq_key, ord, row_values)
        SELECT x.flid, x.seq_key, x.ord, x.row_values
        FROM jsonb_to_recordset(run->'collections') AS x(flid text, coll text, seq_key text, ord integer, row_values jsonb)
        WHERE x.coll = '${name}';
      END IF;`,
  ).join("\n")}
      IF jsonb_array_length(run->'events') > 0 THEN
        ${ids ? "WITH inserted AS (\n        " : ""}INSERT INTO msg_event (target, partition_key, event_type, state_version, payload, source_msg_id, traceparent,
                               headers, status, attempts, created_at)
        SELECT e ->> 'target', e ->> 'partition_key', e ->> 'event_type', (e ->> 'state_version')::bigint,
               (e ->> 'payload')::json, (e ->> 'source_msg_id')::bigint, e ->> 'traceparent',
               NULLIF(e -> 'headers', 'null'::jsonb), 'PENDING', 0, now_ts
        FROM jsonb_array_elements(run->'events') WITH ORDINALITY AS t(e, ord)
        ORDER BY t.ord${ids ? "\n        RETURNING event_id)\n        SELECT array_agg(event_id ORDER BY event_id) INTO event_ids FROM inserted" : ""};
      END IF;
      IF jsonb_array_length(run->'backfill') > 0 THEN
        INSERT INTO backfill_todo (msg_id, processed_at, meta, attempts, next_attempt_at, last_error)
        SELECT x.msg_id, to_timestamp(x.processed_at / 1000.0), x.meta, 0, to_timestamp((run->>'backfill_due')::bigint / 1000.0), NULL
        FROM jsonb_to_recordset(run->'backfill') AS x(msg_id bigint, processed_at bigint, meta jsonb)
        ON CONFLICT (msg_id) DO UPDATE SET
          processed_at = EXCLUDED.processed_at, meta = EXCLUDED.meta, attempts = 0,
          next_attempt_at = EXCLUDED.next_attempt_at, last_error = NULL;
      END IF;
      IF jsonb_array_length(run->'references') > 0 THEN
        INSERT INTO ref_master (rtype, rkey, fields, deleted, version, last_msg_id, updated_at)
        SELECT v.rtype, v.rkey, v.fields, v.deleted, v.version, v.msg, now_ts
        FROM jsonb_to_recordset(run->'references') AS v(rtype text, rkey text, fields jsonb, deleted boolean, version integer, msg bigint)
        ON CONFLICT (rtype, rkey) DO UPDATE SET
          fields = EXCLUDED.fields, deleted = EXCLUDED.deleted, version = EXCLUDED.version,
          last_msg_id = EXCLUDED.last_msg_id, updated_at = EXCLUDED.updated_at;
      END IF;
      IF jsonb_array_length(run->'snapshots') > 0 THEN
        INSERT INTO schd_snap_log (msg_id, styp, operation_day, declared_recs, flights, outcome, reason, logged_at)
        SELECT x.msg_id, x.styp, x.operation_day, x.declared_recs, x.flights, x.outcome, x.reason, now_ts
        FROM jsonb_to_recordset(run->'snapshots') AS x(
          ord integer, msg_id bigint, styp text, operation_day text, declared_recs integer, flights integer, outcome text, reason text)
        ORDER BY x.ord;
      END IF;
      IF jsonb_array_length(run->'audits') > 0 THEN
        INSERT INTO replay_audit (at, operator, action, msg_ids, detail)
        SELECT to_timestamp((a ->> 'at')::bigint / 1000.0), a ->> 'operator', a ->> 'action',
               ARRAY(SELECT jsonb_array_elements_text(a -> 'msg_ids')::bigint), a ->> 'detail'
        FROM jsonb_array_elements(run->'audits') WITH ORDINALITY AS t(a, ord)
        ORDER BY t.ord;
      END IF;${ids ? "\n      RETURN event_ids;" : ""}
    END
  $fn$`;
}

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
  commitRunFunction("CREATE FUNCTION", COLLECTIONS_0032, (_, table) => `        DELETE FROM ${table} WHERE flid = ANY(changed);`),
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
  `DROP FUNCTION msgx_commit_run(integer, integer, bigint, bigint, text[], bigint[], jsonb)`,
  `DROP FUNCTION msgx_expect_rows(text, bigint, bigint)`,
  `DROP FUNCTION msgx_commit_enter(integer, integer, bigint, bigint, text[], bigint[])`,
  `DROP FUNCTION msgx_pipeline_enter(integer, integer, bigint, boolean)`,
  `DROP TABLE pipeline_generation`,
];

export const stateGenerationMigration = (schema: string): Migration => ({
  up: (db: Kysely<unknown>) => runDdl(db, schema, UP),
  down: (db: Kysely<unknown>) => runDdl(db, schema, DOWN),
});
