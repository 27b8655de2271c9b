import { MsgxError, StaleRunError, type CommitRunOptions, type FlightState, type RunDecision } from "@msgx/core";
import { sql } from "kysely";
import type { LockKeys } from "./lock-keys.js";
import { BOUND_KEYS_SQLSTATE, NOT_AT_HEAD_SQLSTATE, STALE_GENERATION_SQLSTATE } from "./migrations/0032-state-generation.js";
import { mapPgError } from "./pg-error-map.js";
import type { Db } from "./queries/db.js";
import { collectionsToRewrite } from "./queries/flights.js";
import { eventRowsJson } from "./queries/msg-event.js";
import { referenceRowsJson } from "./queries/ref-master.js";
import { snapLogRowsJson } from "./queries/snap-log.js";
import { collectionRowsToJson, flightToJson } from "./rows/flight-row.js";
import { procToJson } from "./rows/proc-row.js";
import { toNumber } from "./rows/values.js";

/** What `commitRun` needs besides the decision. */
export interface CommitRunContext {
  readonly keys: LockKeys;
  readonly now: number;
  readonly backfillFirstDelayMs: number;
}

/**
 * `PipelineStore.commitRun` in one round trip: one call of `msgx_commit_run` (0032; 0035 returns the
 * events' ids), the run as one jsonb parameter, in an implicit transaction. The function takes the pipeline lock and checks
 * the fence, the generation and the new bindings (`msgx_commit_enter`) before it writes anything,
 * then makes the writes of `PipelineTx.applyRun` and the audits; any error rolls all of it back.
 * Chosen over one multi-statement message of the same writes by measurement (docs/benchmarks.md,
 * issue 32 item 2).
 *
 * Collections: a collection whose rows equal the flight as `options.stored` gives it is left as it
 * is (`run->'rewrite'`, migration 0034); a flight not there has every collection rewritten.
 *
 * A connection lost once the call may have been sent is `COMMIT_UNKNOWN`, as a lost COMMIT is in
 * `pgTransactionWith`; one lost before a connection was had is not.
 */
export async function commitRun(db: Db, decision: RunDecision, options: CommitRunOptions, context: CommitRunContext): Promise<readonly number[]> {
  if ((decision.requests ?? []).length > 0) throw new MsgxError("INFRA", "commitRun: a run that answers requests commits through transaction");
  const fresh = decision.bindings.filter((b) => b.replaces === undefined);
  const [cls, obj] = context.keys.pipeline;
  const call = sql<{ event_ids: unknown }>`SELECT msgx_commit_run(${cls}::integer, ${obj}::integer, ${options.fence ?? null}::bigint, ${options.generation}::bigint,
    ${fresh.map((b) => b.identityKey)}::text[], ${fresh.map((b) => b.msgId)}::bigint[], ${JSON.stringify(commitRunJson(decision, context, options.stored))}::jsonb) AS event_ids`;
  let connected = false;
  let eventIds: unknown;
  try {
    await db.connection().execute(async (conn) => {
      connected = true;
      eventIds = (await call.execute(conn)).rows[0]?.event_ids;
    });
  } catch (e) {
    throw commitRunError(e, connected);
  }
  // Committed: a function older than 0035 returns no ids, which the pump takes as "not known".
  return Array.isArray(eventIds) ? eventIds.map(toNumber) : [];
}

/**
 * The `run` argument of `msgx_commit_run`: each write's rows as the set-based writes of
 * `queries/` take them (one entry per msgId, FLID and todo: the last wins); `rewrite` names, per
 * collection, the flights whose rows differ from `stored` (`collectionsToRewrite`), and
 * `collections` holds only their rows.
 */
export function commitRunJson(decision: RunDecision, context: Pick<CommitRunContext, "now" | "backfillFirstDelayMs">, stored: ReadonlyMap<string, FlightState> = new Map()) {
  const keys = new Set(decision.bindings.map((b) => b.identityKey));
  if (keys.size !== decision.bindings.length) throw new MsgxError("INFRA", "unique violation: an identity is bound twice in one run");
  const binding = (b: RunDecision["bindings"][number]) => ({ identity_key: b.identityKey, msg_id: b.msgId, content_hash: b.contentHash ?? null, replaces: b.replaces ?? null });
  const flights = [...new Map(decision.flights.map((f) => [f.flid, f])).values()];
  const rewrite = collectionsToRewrite(flights, stored);
  const collections = collectionRowsToJson(flights).filter((r) => rewrite.get(r.coll)?.has(r.flid) === true);
  const backfill = [...new Map(decision.backfill.map((e) => [e.msgId, e])).values()];
  return {
    now: context.now,
    backfill_due: context.now + context.backfillFirstDelayMs,
    records: [...new Map(decision.records.map((r) => [r.msgId, r])).values()].map(procToJson),
    fresh: decision.bindings.filter((b) => b.replaces === undefined).map(binding),
    moves: decision.bindings.filter((b) => b.replaces !== undefined).map(binding),
    flights: flights.map(flightToJson),
    flids: flights.map((f) => f.flid),
    rewrite: Object.fromEntries([...rewrite].map(([coll, flids]) => [coll, [...flids]])),
    colls: [...new Set(collections.map((c) => c.coll))],
    collections,
    events: eventRowsJson(decision.events),
    backfill: backfill.map((e) => ({ msg_id: e.msgId, processed_at: e.processedAt, meta: e.meta })),
    references: referenceRowsJson(decision.references ?? []),
    snapshots: snapLogRowsJson(decision.snapshots ?? []),
    audits: (decision.audits ?? []).map((a) => ({ at: a.at, operator: a.operator, action: a.action, msg_ids: a.msgIds, detail: a.detail })),
  };
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
  if (code === NOT_AT_HEAD_SQLSTATE) return new StaleRunError(`commitRun: ${message}`, { notAtHead: true });
  if (!connected) return mapPgError(e, "commitRun: connect");
  // The server's own refusal (lock_timeout, statement_timeout) came before the commit: nothing was written.
  const refusedBeforeCommit = code === "55P03" || code === "57014";
  return mapPgError(e, "commitRun", refusedBeforeCommit ? "statement" : "commit");
}
