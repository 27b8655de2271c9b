import { MsgxError, StaleRunError, type CommitRunOptions, type RunDecision } from "@msgx/core";
import { sql, type RawBuilder } from "kysely";
import type { LockKeys } from "./lock-keys.js";
import { BOUND_KEYS_SQLSTATE, STALE_GENERATION_SQLSTATE } from "./migrations/0032-state-generation.js";
import { mapPgError } from "./pg-error-map.js";
import { appendAuditStatement } from "./queries/audit.js";
import { registerBackfillParts } from "./queries/backfill-todo.js";
import type { Db } from "./queries/db.js";
import { writeFlightsParts } from "./queries/flights.js";
import { bindIdentitiesParts } from "./queries/identities.js";
import { inlineParameters } from "./queries/inline-sql.js";
import { insertEventsParts } from "./queries/msg-event.js";
import { updateRecordsParts } from "./queries/proc-state.js";
import { upsertReferencesStatement } from "./queries/ref-master.js";
import { insertSnapLogStatement } from "./queries/snap-log.js";
import { checkedPartsStatement } from "./queries/write-part.js";

/** What `commitRun` needs besides the decision. */
export interface CommitRunContext {
  readonly keys: LockKeys;
  readonly now: number;
  readonly backfillFirstDelayMs: number;
}

/**
 * `PipelineStore.commitRun` in one round trip: one message of several statements by the simple
 * protocol (values inlined as literals), which PostgreSQL runs as one implicit transaction — any
 * error aborts all of it, and the commit is the end of the message. The first statement,
 * `msgx_commit_enter` (0032), takes the pipeline lock and checks the fence, the generation and the
 * new bindings before anything is written; then the writes of `PipelineTx.applyRun` (the same
 * parts, their row counts checked in SQL since the results are not read) and the audits.
 *
 * Collections: the store does not hold the flights as stored, so every collection of a flight the
 * run changed is rewritten (figures in docs/benchmarks.md, issue 32 item 2).
 *
 * A connection lost once the message may have been sent is `COMMIT_UNKNOWN`, as a lost COMMIT is
 * in `pgTransactionWith`; one lost before a connection was had is not.
 */
export async function commitRun(db: Db, decision: RunDecision, options: CommitRunOptions, context: CommitRunContext): Promise<void> {
  if ((decision.requests ?? []).length > 0) throw new MsgxError("INFRA", "commitRun: a run that answers requests commits through transaction");
  const text = commitRunText(db, decision, options, context);
  let connected = false;
  try {
    await db.connection().execute(async (conn) => {
      connected = true;
      await sql.raw(text).execute(conn);
    });
  } catch (e) {
    throw commitRunError(e, connected);
  }
}

/** The message `commitRun` sends: its statements, values inlined, joined. */
export function commitRunText(db: Db, decision: RunDecision, options: CommitRunOptions, context: CommitRunContext): string {
  const { keys, now } = context;
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
      ...registerBackfillParts(decision.backfill, now, context.backfillFirstDelayMs),
    ]),
    checkedPartsStatement(flights.second),
    upsertReferencesStatement(decision.references ?? [], now),
    insertSnapLogStatement(decision.snapshots ?? [], now),
    ...(decision.audits ?? []).map(appendAuditStatement),
  ];
  return statements.flatMap((s) => (s === undefined ? [] : [inlineParameters(s.compile(db))])).join(";\n");
}

/** `commitRun`'s refusals as `StaleRunError`; the rest as the driver mapping gives them, a lost connection as COMMIT_UNKNOWN. */
function commitRunError(e: unknown, connected: boolean): MsgxError {
  const code = (e as { code?: unknown })?.code;
  const detail = (e as { detail?: unknown })?.detail;
  const message = e instanceof Error ? e.message : String(e);
  if (code === STALE_GENERATION_SQLSTATE) {
    const generation = Number(typeof detail === "string" ? detail : /state generation is (\d+)/.exec(message)?.[1]);
    return new StaleRunError(`commitRun: ${message}`, Number.isSafeInteger(generation) ? { generation } : {});
  }
  if (code === BOUND_KEYS_SQLSTATE) {
    const boundKeys = typeof detail === "string" ? (JSON.parse(detail) as string[]) : [];
    return new StaleRunError(`commitRun: ${message}`, { boundKeys });
  }
  if (!connected) return mapPgError(e, "commitRun: connect");
  // The server's own refusal (lock_timeout, statement_timeout) came before the commit: nothing was written.
  const refusedBeforeCommit = code === "55P03" || code === "57014";
  return mapPgError(e, "commitRun", refusedBeforeCommit ? "statement" : "commit");
}
