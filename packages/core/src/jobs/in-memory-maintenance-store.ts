import { MsgxError } from "../errors/msgx-error.js";
import { compareFlids } from "../flight/flight-reader.js";
import { retiredFlightState } from "../flight/history-retirement.js";
import { isTerminal, ProcStatus, type ProcRecord } from "../model/proc-record.js";
import type { Clock } from "../runtime/clock.js";
import { FaultPlan } from "../testing/fault-plan.js";
import type { InMemoryPipelineStore } from "../processing/in-memory-pipeline-store.js";
import type {
  ArchiveQuery,
  MaintenanceStore,
  MaintenanceTx,
  MaintenanceWriteOptions,
  ReconcileEntry,
  RetiredFlight,
} from "./maintenance-store.js";
import type { ArchivedRecord, SnapshotLogRow } from "../processing/pipeline-store.js";

/** The fake's own tables; the pipeline's (records, flights, events, todos, snap log, archive) are the pipeline fake's. */
export interface InMemoryMaintenanceTables {
  /** `FLIGHT_SCHD_HST`, in retirement order. */
  readonly flightHistory: RetiredFlight[];
}

/**
 * The in-memory `MaintenanceStore`, over `InMemoryPipelineStore.tables` (and its
 * `archive`). Every write runs inside `pipeline.transaction`, so it is serialized with pipeline
 * runs exactly as the database's advisory lock serializes them; the fence is checked against
 * `tables.epoch` before anything is applied. Writes of a transaction are staged and applied
 * together after `fn` returned. (A pipeline fault armed for `commit` fires after those writes, so
 * it reads as an unknown commit outcome, like `commitUnknownNext`.) Fault hooks: `faults`.
 */
export class InMemoryMaintenanceStore implements MaintenanceStore {
  readonly faults = new FaultPlan("maintenance-store");
  readonly tables: InMemoryMaintenanceTables = { flightHistory: [] };

  constructor(
    readonly pipeline: InMemoryPipelineStore,
    private readonly clock: Clock,
  ) {}

  /** Seeds a snapshot log row as the pipeline would write it (not part of the port). */
  logSnapshot(msgId: number, loggedAt: number): void {
    const t = this.pipeline.tables;
    t.snapLog.push({ snapId: t.nextSnapId++, msgId, styp: "DNLD", operationDay: null, declaredRecs: null, flights: 0, outcome: ProcStatus.SUCCEEDED, reason: null, loggedAt });
  }

  transaction<T>(fn: (tx: MaintenanceTx) => Promise<T>, options: MaintenanceWriteOptions = {}): Promise<T> {
    return this.#locked("transaction", options, async () => {
      const t = this.pipeline.tables;
      const staged: (() => void)[] = [];
      const tx: MaintenanceTx = {
        retirableFlights: async (cutoffDay, limit) =>
          [...t.flights.values()]
            .filter((f) => f.operationDay !== null && f.operationDay < cutoffDay)
            .sort((a, b) => (a.operationDay! < b.operationDay! ? -1 : a.operationDay! > b.operationDay! ? 1 : compareFlids(a.flid, b.flid)))
            .slice(0, limit),
        retireFlights: async (flights, events) => {
          for (const r of flights) {
            const live = t.flights.get(r.flid);
            if (live === undefined || live.stateVersion !== r.finalState.stateVersion) {
              throw new MsgxError("INFRA", `flight ${r.flid} is not stored at version ${r.finalState.stateVersion}`);
            }
          }
          staged.push(() => {
            for (const r of flights) {
              t.flights.delete(r.flid);
              this.tables.flightHistory.push(r);
              const version = r.tombstoneVersion ?? r.finalState.stateVersion;
              if (version >= (t.retired.get(r.flid)?.stateVersion ?? 0)) t.retired.set(r.flid, retiredFlightState(r.flid, version, r.finalState.lastMsgId));
            }
            // The leader may hold these flights in memory: it must load them again.
            t.generation += 1;
            const now = this.clock.now();
            for (const e of events) {
              this.pipeline.insertEvent(e, now);
            }
          });
        },
      };
      const result = await fn(tx);
      return () => {
        for (const write of staged) write();
        return result;
      };
    });
  }

  async retiredFlights(flid: string): Promise<readonly RetiredFlight[]> {
    this.faults.check("retiredFlights");
    return this.tables.flightHistory.filter((r) => r.flid === flid);
  }

  async snapshotLog(limit: number): Promise<readonly SnapshotLogRow[]> {
    this.faults.check("snapshotLog");
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`limit must be a positive integer, got ${limit}`);
    return [...this.pipeline.tables.snapLog].sort((a, b) => b.snapId - a.snapId).slice(0, limit);
  }

  async purgeSnapLog(before: number, limit: number): Promise<number> {
    this.faults.check("purgeSnapLog");
    const log = this.pipeline.tables.snapLog;
    const doomed = new Set(
      [...log]
        .filter((r) => r.loggedAt < before)
        .sort((a, b) => a.loggedAt - b.loggedAt || a.snapId - b.snapId)
        .slice(0, limit)
        .map((r) => r.snapId),
    );
    const kept = log.filter((r) => !doomed.has(r.snapId));
    log.splice(0, log.length, ...kept);
    return doomed.size;
  }

  archiveTerminal(query: ArchiveQuery, options: MaintenanceWriteOptions = {}): Promise<readonly number[]> {
    return this.#locked("archiveTerminal", options, async () => {
      const t = this.pipeline.tables;
      const picked = [...t.records.values()]
        .filter((r) => isTerminal(r.status) && r.updatedAt < query.updatedBefore && r.msgId <= query.throughMsgId && !t.backfill.has(r.msgId))
        .sort((a, b) => a.updatedAt - b.updatedAt || a.msgId - b.msgId)
        .slice(0, query.limit);
      return () => {
        for (const r of picked) {
          t.records.delete(r.msgId);
          this.pipeline.archive.set(r.msgId, { record: r, archivedAt: query.now });
        }
        return picked.map((r) => r.msgId).sort((a, b) => a - b);
      };
    });
  }

  async archivedRecords(msgIds: readonly number[]): Promise<readonly ArchivedRecord[]> {
    this.faults.check("archivedRecords");
    return [...new Set(msgIds)]
      .sort((a, b) => a - b)
      .flatMap((id) => {
        const a = this.pipeline.archive.get(id);
        return a === undefined ? [] : [a];
      });
  }

  async reconcileRange(afterMsgId: number, throughMsgId: number): Promise<readonly ReconcileEntry[]> {
    this.faults.check("reconcileRange");
    const t = this.pipeline.tables;
    const inRange = (id: number) => id > afterMsgId && id <= throughMsgId;
    const entry = (r: ProcRecord, archived: boolean): ReconcileEntry => ({ msgId: r.msgId, status: r.status, archived, backfillPending: t.backfill.has(r.msgId) });
    return [
      ...[...t.records.values()].filter((r) => inRange(r.msgId)).map((r) => entry(r, false)),
      ...[...this.pipeline.archive.values()].filter((a) => inRange(a.record.msgId)).map((a) => entry(a.record, true)),
    ].sort((a, b) => a.msgId - b.msgId);
  }

  registerMissingBackfill(msgIds: readonly number[], now: number, options: MaintenanceWriteOptions = {}): Promise<readonly number[]> {
    return this.#locked("registerMissingBackfill", options, async () => {
      const t = this.pipeline.tables;
      const due = [...new Set(msgIds)].sort((a, b) => a - b).flatMap((id) => {
        const live = t.records.get(id);
        const r = live !== undefined && isTerminal(live.status) ? live : live === undefined ? this.pipeline.archive.get(id)?.record : undefined;
        return r === undefined || t.backfill.has(id) ? [] : [r];
      });
      return () => {
        for (const r of due) {
          t.backfill.set(r.msgId, { msgId: r.msgId, processedAt: r.updatedAt, meta: r.meta, attempts: 0, nextAttemptAt: now, lastError: null });
        }
        return due.map((r) => r.msgId);
      };
    });
  }

  /**
   * Runs `prepare` as one pipeline transaction: it reads and returns the commit; the commit runs
   * only if the fence is current, still inside the transaction, so nothing interleaves.
   */
  #locked<T>(operation: string, options: MaintenanceWriteOptions, prepare: () => Promise<() => T>): Promise<T> {
    return this.pipeline.transaction(async () => {
      this.faults.check(operation);
      const commit = await prepare();
      const epoch = this.pipeline.tables.epoch;
      if (options.fence !== undefined && options.fence !== epoch) {
        throw new MsgxError("FENCED", `fence ${options.fence} is stale (epoch ${epoch})`);
      }
      return commit();
    });
  }
}
