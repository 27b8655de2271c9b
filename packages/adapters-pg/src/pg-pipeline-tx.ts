import type { AuditEntry, FlightState, PipelineTx, ProcRecord, RunDecision } from "@msgx/core";
import { appendAudit } from "./operations/append-audit.js";
import { bindIdentities } from "./operations/bind-identities.js";
import type { Db } from "./operations/db.js";
import { identityOwners } from "./operations/identity-owners.js";
import { insertEvents } from "./operations/insert-events.js";
import { loadFlights } from "./operations/load-flights.js";
import { loadRecords } from "./operations/load-records.js";
import { registerBackfill } from "./operations/register-backfill.js";
import { updateRecords } from "./operations/update-records.js";
import { writeFlights } from "./operations/write-flights.js";
import { pgCall } from "./pg-error-map.js";

/**
 * One pipeline transaction on one connection. Each member is one to a few set-based statements;
 * driver errors leave as `MsgxError`.
 */
export class PgPipelineTx implements PipelineTx {
  readonly #db: Db;
  readonly #now: number;
  readonly #backfillFirstDelayMs: number;

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
    return pgCall("loadFlights", () => loadFlights(this.#db, flids));
  }

  /**
   * At most six statements whatever the run size (empty parts are skipped): records, identities,
   * flights (two), events, backfill todos. Each takes its rows as one JSON parameter, so a run of
   * any size stays far below PostgreSQL's 65,535 bind parameters.
   */
  applyRun(decision: RunDecision): Promise<void> {
    return pgCall("applyRun", async () => {
      await updateRecords(this.#db, decision.records);
      await bindIdentities(this.#db, decision.bindings, this.#now);
      await writeFlights(this.#db, decision.flights, this.#now);
      await insertEvents(this.#db, decision.events, this.#now);
      await registerBackfill(this.#db, decision.backfill, this.#now, this.#backfillFirstDelayMs);
    });
  }

  appendAudit(entry: AuditEntry): Promise<void> {
    return pgCall("appendAudit", () => appendAudit(this.#db, entry));
  }
}
