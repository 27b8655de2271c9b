import { MsgxError, type AuditEntry, type FlightState, type IdentityOwner, type PipelineTx, type ProcRecord, type RefEntry, type RequestRecord, type RunDecision } from "@msgx/core";
import { sql } from "kysely";
import { pgCall } from "./pg-error-map.js";
import { appendAudit } from "./queries/audit.js";
import { registerBackfillParts } from "./queries/backfill-todo.js";
import type { Db } from "./queries/db.js";
import { loadFlights, writeFlightsParts } from "./queries/flights.js";
import { bindIdentitiesParts, identityOwners } from "./queries/identities.js";
import { insertEventsParts } from "./queries/msg-event.js";
import { loadRecords, updateRecordsParts } from "./queries/proc-state.js";
import { loadReferences, upsertReferences } from "./queries/ref-master.js";
import { answerableRequests, updateRequest } from "./queries/req-track.js";
import { insertSnapLog } from "./queries/snap-log.js";
import { loadRunState, type RunState } from "./queries/run-state.js";
import { executeParts } from "./queries/write-part.js";

/** The owners and flights asked for in one turn, and the answer to both (empty for one asked alone). */
interface PendingRunState {
  readonly asked: { keys?: readonly string[]; flids?: readonly string[] };
  readonly state: Promise<Partial<RunState>>;
}

/**
 * One pipeline transaction on one connection. Each member is one to a few set-based statements;
 * driver errors leave as `MsgxError`.
 */
export class PgPipelineTx implements PipelineTx {
  readonly #db: Db;
  readonly #now: number;
  readonly #backfillFirstDelayMs: number;
  /** Flights as stored now, as this transaction loaded (locked) or wrote them: writes skip unchanged collections. */
  readonly #stored = new Map<string, FlightState>();
  /** Owners and flights asked for in the current turn, loaded together at its end. */
  #batch: PendingRunState | undefined;

  constructor(db: Db, now: number, backfillFirstDelayMs: number) {
    this.#db = db;
    this.#now = now;
    this.#backfillFirstDelayMs = backfillFirstDelayMs;
  }

  loadRecords(msgIds: readonly number[]): Promise<readonly ProcRecord[]> {
    return pgCall("loadRecords", () => loadRecords(this.#db, msgIds));
  }

  /** Shares one statement with a `loadFlights` called in the same turn (see `#runState`). */
  identityOwners(keys: readonly string[]): Promise<ReadonlyMap<string, IdentityOwner>> {
    if (keys.length === 0) return Promise.resolve(new Map());
    return this.#runState("keys", keys).then((s) => s.owners ?? pgCall("identityOwners", () => identityOwners(this.#db, keys)));
  }

  /** Shares one statement with an `identityOwners` called in the same turn (see `#runState`). */
  loadFlights(flids: readonly string[]): Promise<ReadonlyMap<string, FlightState>> {
    if (flids.length === 0) return Promise.resolve(new Map());
    return this.#runState("flids", flids).then(async (s) => {
      const { stored, retired } = s.flights ?? (await pgCall("loadFlights", () => loadFlights(this.#db, flids)));
      for (const [flid, f] of stored) this.#stored.set(flid, f);
      return new Map([...stored, ...retired]);
    });
  }

  /**
   * The pump asks for a run's identity owners and flights together (`Promise.all`): the two
   * requests made in one turn are answered by one statement (`loadRunState`), a round trip less
   * per run. A request alone gets nothing here and runs its own statement.
   */
  #runState(part: "keys" | "flids", values: readonly string[]): Promise<Partial<RunState>> {
    let batch = this.#batch;
    if (batch === undefined || batch.asked[part] !== undefined) {
      const asked: PendingRunState["asked"] = {};
      // Runs once this turn's synchronous calls are done, so both requests are in by then.
      const state = Promise.resolve().then((): Promise<Partial<RunState>> | Partial<RunState> => {
        if (this.#batch?.asked === asked) this.#batch = undefined;
        const { keys, flids } = asked;
        if (keys === undefined || flids === undefined) return {};
        return pgCall("identityOwners + loadFlights", () => loadRunState(this.#db, keys, flids));
      });
      this.#batch = batch = { asked, state };
    }
    batch.asked[part] = values;
    return batch.state;
  }

  /** SENT and WAITING requests, locked `FOR UPDATE` until the transaction ends. */
  openRequests(): Promise<readonly RequestRecord[]> {
    return pgCall("openRequests", () => answerableRequests(this.#db));
  }

  /** Every `ref_master` row of `rtypes`, tombstones included (one statement). */
  loadReferences(rtypes: readonly string[]): Promise<readonly RefEntry[]> {
    return pgCall("loadReferences", () => loadReferences(this.#db, rtypes));
  }

  /**
   * Two statements whatever the run size: one moving the state generation on and combining the records, identities, flight rows and
   * the collection rows to rewrite (deleted), events and backfill todos (data-modifying CTEs on
   * different tables), then one inserting the rewritten collection rows (they reuse the deleted
   * keys, so they cannot share the first statement). Each part takes its rows as one JSON
   * parameter, so a run of any size stays far below PostgreSQL's 65,535 bind parameters. A run
   * that answered upstream requests adds one compare-and-set per closed request and one reference
   * upsert; one that holds snapshot messages adds one `schd_snap_log` insert.
   *
   * Few statements because each round trip waits on the event loop under load (figures in
   * docs/benchmarks.md, "Latency").
   */
  applyRun(decision: RunDecision): Promise<void> {
    return pgCall("applyRun", async () => {
      const flights = writeFlightsParts(decision.flights, this.#now, this.#stored);
      await executeParts(this.#db, [
        // The leader's memory holds what a run writes: it must see that this transaction wrote (PipelineStore).
        { name: "bump_generation", body: sql`UPDATE pipeline_generation SET generation = generation + 1 WHERE id = 1` },
        ...updateRecordsParts(decision.records),
        ...bindIdentitiesParts(decision.bindings, this.#now),
        ...flights.first,
        ...insertEventsParts(decision.events, this.#now),
        ...registerBackfillParts(decision.backfill, this.#now, this.#backfillFirstDelayMs),
      ]);
      await executeParts(this.#db, flights.second);
      for (const f of decision.flights) this.#stored.set(f.flid, f);
      for (const c of decision.requests ?? []) {
        if (!(await updateRequest(this.#db, c.request, c.expectedVersion))) {
          throw new MsgxError("INFRA", `request ${c.request.requestId} changed since the run loaded it (expected version ${c.expectedVersion})`);
        }
      }
      await upsertReferences(this.#db, decision.references ?? [], this.#now);
      await insertSnapLog(this.#db, decision.snapshots ?? [], this.#now);
    });
  }

  appendAudit(entry: AuditEntry): Promise<void> {
    return pgCall("appendAudit", () => appendAudit(this.#db, entry));
  }
}
