/**
 * Candidate (a) of issue 32 item 2, for the benchmark only: `commitRun` as one message of several
 * statements by the simple protocol (values inlined as literals), which PostgreSQL runs as one
 * implicit transaction. The statements are `PipelineTx.applyRun`'s own parts (`queries/`), their
 * row counts checked in SQL (`msgx_expect_rows`, 0032) since the driver does not hand the results
 * of such a message back; the first is `msgx_commit_enter`. Every collection of a changed flight
 * is rewritten, as in the kept candidate.
 */
import type { CommitRunOptions, RunDecision } from "@msgx/core";
import { sql, type Kysely, type RawBuilder } from "kysely";
import type { LockKeys } from "../../packages/adapters-pg/src/lock-keys.js";
import { appendAuditStatement } from "../../packages/adapters-pg/src/queries/audit.js";
import { registerBackfillParts } from "../../packages/adapters-pg/src/queries/backfill-todo.js";
import { writeFlightsParts } from "../../packages/adapters-pg/src/queries/flights.js";
import { bindIdentitiesParts } from "../../packages/adapters-pg/src/queries/identities.js";
import { insertEventsParts } from "../../packages/adapters-pg/src/queries/msg-event.js";
import { updateRecordsParts } from "../../packages/adapters-pg/src/queries/proc-state.js";
import { upsertReferencesStatement } from "../../packages/adapters-pg/src/queries/ref-master.js";
import { insertSnapLogStatement } from "../../packages/adapters-pg/src/queries/snap-log.js";
import type { WritePart } from "../../packages/adapters-pg/src/queries/write-part.js";
import { inlineParameters } from "./inline-sql.js";

/** `parts` as one statement that checks its own counts (a shortfall fails it); undefined for none. */
function checkedPartsStatement(parts: readonly WritePart[]): RawBuilder<unknown> | undefined {
  if (parts.length === 0) return undefined;
  const counted = parts.filter((p) => p.expectRows !== undefined);
  const checks =
    counted.length === 0
      ? sql`1`
      : sql.join(counted.map((p) => sql`msgx_expect_rows(${p.name}, (SELECT count(*) FROM ${sql.ref(p.name)}), ${p.expectRows!.count})`));
  return sql`WITH ${sql.join(parts.map((p) => sql`${sql.ref(p.name)} AS (${p.body})`))} SELECT ${checks}`;
}

/** Commits `decision` as one multi-statement message (no parameters: the simple protocol). */
export async function commitRunByMultiStatement(
  db: Kysely<any>,
  keys: LockKeys,
  decision: RunDecision,
  options: CommitRunOptions,
  now: number,
  backfillFirstDelayMs: number,
): Promise<void> {
  const fresh = decision.bindings.filter((b) => b.replaces === undefined);
  const flights = writeFlightsParts(decision.flights, now);
  const statements: (RawBuilder<unknown> | undefined)[] = [
    sql`SELECT msgx_commit_enter(${keys.pipeline[0]}::integer, ${keys.pipeline[1]}::integer, ${options.fence ?? null}::bigint,
      ${options.generation}::bigint, ${fresh.map((b) => b.identityKey)}::text[], ${fresh.map((b) => b.msgId)}::bigint[])`,
    checkedPartsStatement([
      ...updateRecordsParts(decision.records),
      ...bindIdentitiesParts(decision.bindings, now),
      ...flights.first,
      ...insertEventsParts(decision.events, now),
      ...registerBackfillParts(decision.backfill, now, backfillFirstDelayMs),
    ]),
    checkedPartsStatement(flights.second),
    upsertReferencesStatement(decision.references ?? [], now),
    insertSnapLogStatement(decision.snapshots ?? [], now),
    ...(decision.audits ?? []).map(appendAuditStatement),
  ];
  const text = statements.flatMap((s) => (s === undefined ? [] : [inlineParameters(s.compile(db))])).join(";\n");
  await sql.raw(text).execute(db);
}
