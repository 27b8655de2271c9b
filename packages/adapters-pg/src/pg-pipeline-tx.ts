import { MsgxError, type AuditEntry, type FlightState, type PipelineTx, type ProcRecord, type RunDecision } from "@msgx/core";
import type { RequestRecord } from "./requests/core-requests.js";
import { appendAudit } from "./operations/append-audit.js";
import { bindIdentities } from "./operations/bind-identities.js";
import type { Db } from "./operations/db.js";
import { identityOwners } from "./operations/identity-owners.js";
import { insertEvents } from "./operations/insert-events.js";
import { insertSnapLog } from "./operations/insert-snap-log.js";
import { loadFlights } from "./operations/load-flights.js";
import { loadRecords } from "./operations/load-records.js";
import { registerBackfill } from "./operations/register-backfill.js";
import { updateRecords } from "./operations/update-records.js";
import { writeFlights } from "./operations/write-flights.js";
import { pgCall } from "./pg-error-map.js";
import { answerableRequests } from "./requests/operations/answerable-requests.js";
import { updateRequest } from "./requests/operations/update-request.js";
import { upsertReferences } from "./requests/operations/upsert-references.js";

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

  constructor(db: Db, now: number, backfillFirstDelayMs: number) {
    this.#db = db;
    this.#now = now;
    this.#backfillFirstDelayMs = backfillFirstDelayMs;
  }

  loadRecords(msgIds: readonly number[]): Promise<readonly ProcRecord[]> {
    return pgCall("loadRecords", () => loadRecords(this.#db, msgIds));
  }

  identityOwners(keys: readonly string[]): Promise<ReadonlyMap<string, number>> {
    return pgCall("identityOwners", () => identityOwners(this.#db, keys));
  }

  loadFlights(flids: readonly string[]): Promise<ReadonlyMap<string, FlightState>> {
    return pgCall("loadFlights", async () => {
      const { stored, retired } = await loadFlights(this.#db, flids);
      for (const [flid, f] of stored) this.#stored.set(flid, f);
      return new Map([...stored, ...retired]);
    });
  }

  /** SENT and WAITING requests, locked `FOR UPDATE` until the transaction ends. */
  openRequests(): Promise<readonly RequestRecord[]> {
    return pgCall("openRequests", () => answerableRequests(this.#db));
  }

  /**
   * At most six statements whatever the run size (empty parts are skipped): records, identities,
   * flights (two), events, backfill todos. Each takes its rows as one JSON parameter, so a run of
   * any size stays far below PostgreSQL's 65,535 bind parameters. A run that answered upstream
   * requests adds one compare-and-set per closed request and one reference upsert; one that holds
   * snapshot messages adds one `schd_snap_log` insert.
   */
  applyRun(decision: RunDecision): Promise<void> {
    return pgCall("applyRun", async () => {
      await updateRecords(this.#db, decision.records);
      await bindIdentities(this.#db, decision.bindings, this.#now);
      await writeFlights(this.#db, decision.flights, this.#now, this.#stored);
      for (const f of decision.flights) this.#stored.set(f.flid, f);
      await insertEvents(this.#db, decision.events, this.#now);
      await registerBackfill(this.#db, decision.backfill, this.#now, this.#backfillFirstDelayMs);
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
