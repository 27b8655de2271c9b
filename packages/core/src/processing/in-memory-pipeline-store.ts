import type { ErrorClass } from "../errors/error-class.js";
import { MsgxError } from "../errors/msgx-error.js";
import type { FlightState } from "../model/flight-state.js";
import { isTerminal, ProcStatus, type ProcRecord } from "../model/proc-record.js";
import { pendingEvent, type OutboxEvent, type OutboxEventDraft } from "../outbox/outbox-event.js";
import type { Clock } from "../runtime/clock.js";
import type {
  ArchivedRecord,
  AuditRow,
  BackfillTodo,
  CommitRunOptions,
  InboxEntry,
  IntakeState,
  LoadedRunState,
  PipelineStore,
  PipelineTx,
  RecordFilter,
  RecordGroup,
  SnapshotLogRow,
} from "./pipeline-store.js";
import { newProcRecord } from "./proc-machine.js";
import type { AuditEntry, IdentityOwner, RunDecision } from "./run-decision.js";
import { newRequestTables, type InMemoryRequestTables } from "../requests/in-memory-request-tables.js";
import { refKey } from "../requests/reference-entry.js";
import { isAnswerableRequest } from "../requests/request-status.js";
import { FaultPlan } from "../testing/fault-plan.js";
import { StaleRunError } from "./stale-run-error.js";

/** First delay of a backfill todo: the pump tries at once after commit; the sweep only later. */
export const BACKFILL_FIRST_DELAY_MS = 30_000;

/** A `SCHD_SNAP_LOG` row of the fake: what the port reads. */
export type InMemorySnapLogRow = SnapshotLogRow;

/** Every table of the fake, public so tests and sibling fakes can look inside. */
export interface InMemoryTables {
  readonly records: Map<number, ProcRecord>;
  readonly identities: Map<string, number>;
  /** The content hash stored with each binding that has one (`MSG_IDENTITY.CONTENT_HASH`). */
  readonly identityHashes: Map<string, string>;
  /** When each binding was made, from the clock at commit (`MSG_IDENTITY.BOUND_AT`, epoch ms). */
  readonly identityBoundAt: Map<string, number>;
  readonly flights: Map<string, FlightState>;
  /** What `loadFlights` gives for a retired FLID not stored again (kept by the maintenance fake). */
  readonly retired: Map<string, FlightState>;
  readonly events: OutboxEvent[];
  readonly backfill: Map<number, BackfillTodo>;
  readonly audits: AuditEntry[];
  /** `SCHD_SNAP_LOG`, in commit order (purged by the maintenance fake). */
  readonly snapLog: InMemorySnapLogRow[];
  /** Terminal transitions in commit order: the FIFO oracle of the model tests. */
  readonly terminalLog: { msgId: number; status: ProcStatus }[];
  /** `REQ_TRACK`, our SEQN counters and `REF_MASTER` (shared with `InMemoryRequestStore`). */
  readonly requestTables: InMemoryRequestTables;
  intake: IntakeState | undefined;
  epoch: number;
  /**
   * The state generation: moved on by every commit of a `transaction` that wrote a run
   * (`applyRun`) and by the maintenance fake's `retireFlights`, never by `enqueue`, `commitRun` or a
   * transaction that only read or appended audits (the leader's memory is valid for one).
   */
  generation: number;
  nextEventId: number;
  nextSnapId: number;
}

/**
 * The in-memory `PipelineStore`: maps and arrays, one transaction at a time, writes staged and
 * applied at commit. Fault hooks: `faults` (outage, fail next N; `commitRun` checks `commitRun`
 * and then `commit`), `commitUnknownNext` (commit, then report that the outcome is unknown),
 * `epoch` for fencing, `generation` for the leader's memory.
 */
export class InMemoryPipelineStore implements PipelineStore {
  readonly faults = new FaultPlan("pipeline-store");
  readonly tables: InMemoryTables = {
    records: new Map(),
    identities: new Map(),
    identityHashes: new Map(),
    identityBoundAt: new Map(),
    flights: new Map(),
    retired: new Map(),
    events: [],
    backfill: new Map(),
    audits: [],
    snapLog: [],
    terminalLog: [],
    requestTables: newRequestTables(),
    intake: undefined,
    epoch: 0,
    generation: 0,
    nextEventId: 1,
    nextSnapId: 1,
  };
  /** When set, the next commit applies its writes and then throws `COMMIT_UNKNOWN`. */
  commitUnknownNext = false;
  #tail: Promise<unknown> = Promise.resolve();

  /** `PROC_STATE_HST`: archived terminal records by id (written by `InMemoryMaintenanceStore`). */
  readonly archive = new Map<number, ArchivedRecord>();

  constructor(private readonly clock: Clock) {}

  /**
   * Appends `draft` to `MSG_EVENT` as a PENDING row with the next EVENT_ID and returns the id: the
   * one way every fake sharing these tables (tasks, reliable messages, maintenance) writes an
   * outbox row. Call it where the write commits (inside a staged write of a transaction).
   */
  insertEvent(draft: OutboxEventDraft, now: number): number {
    const eventId = this.tables.nextEventId++;
    this.tables.events.push(pendingEvent(draft, eventId, now));
    return eventId;
  }

  async enqueue(entries: readonly InboxEntry[], intake: IntakeState): Promise<readonly number[]> {
    this.faults.check("enqueue");
    const inserted: number[] = [];
    for (const e of entries) {
      // An archived id is never inserted again, as the PostgreSQL store's PROC_STATE_HST check does.
      if (this.tables.records.has(e.msgId) || this.archive.has(e.msgId)) continue;
      this.tables.records.set(e.msgId, newProcRecord(e.msgId, e.receivedAt, this.clock.now(), e.traceparent ?? null));
      inserted.push(e.msgId);
    }
    this.tables.intake = { horizon: Math.max(intake.horizon, this.tables.intake?.horizon ?? 0) };
    return inserted;
  }

  async intakeState(): Promise<IntakeState | undefined> {
    this.faults.check("intakeState");
    return this.tables.intake;
  }

  async head(): Promise<ProcRecord | undefined> {
    this.faults.check("head");
    return this.#sorted().find((r) => !isTerminal(r.status));
  }

  async unfinished(fromMsgId: number, limit: number): Promise<readonly ProcRecord[]> {
    this.faults.check("unfinished");
    return this.#sorted()
      .filter((r) => r.msgId >= fromMsgId && !isTerminal(r.status))
      .slice(0, limit);
  }

  async get(msgId: number): Promise<ProcRecord | undefined> {
    this.faults.check("get");
    return this.tables.records.get(msgId);
  }

  async list(filter: RecordFilter): Promise<readonly ProcRecord[]> {
    this.faults.check("list");
    return this.#sorted()
      .filter(
        (r) =>
          (filter.statuses === undefined || filter.statuses.includes(r.status)) &&
          (filter.errorClasses === undefined || (r.errorClass !== null && filter.errorClasses.includes(r.errorClass))) &&
          (filter.msgIds === undefined || filter.msgIds.includes(r.msgId)) &&
          (filter.afterMsgId === undefined || r.msgId > filter.afterMsgId),
      )
      .slice(0, filter.limit ?? Number.POSITIVE_INFINITY);
  }

  async groups(statuses: readonly ProcStatus[], idsPerGroup: number): Promise<readonly RecordGroup[]> {
    this.faults.check("groups");
    const byKey = new Map<string, { errorClass: ErrorClass | null; reason: string | null; ids: number[] }>();
    for (const r of this.#sorted()) {
      if (!statuses.includes(r.status)) continue;
      const key = JSON.stringify([r.errorClass, r.reason]);
      const group = byKey.get(key) ?? { errorClass: r.errorClass, reason: r.reason, ids: [] };
      group.ids.push(r.msgId);
      byKey.set(key, group);
    }
    // Nulls last, text in code-point order (the SQL adapters sort with the C collation).
    const text = (a: string | null, b: string | null) => (a === b ? 0 : a === null ? 1 : b === null ? -1 : a < b ? -1 : 1);
    return [...byKey.values()]
      .sort((a, b) => text(a.errorClass, b.errorClass) || b.ids.length - a.ids.length || text(a.reason, b.reason))
      .map((g) => ({ errorClass: g.errorClass, reason: g.reason, count: g.ids.length, msgIds: g.ids.slice(0, idsPerGroup) }));
  }

  transaction<T>(fn: (tx: PipelineTx) => Promise<T>, options: { readonly fence?: number } = {}): Promise<T> {
    return this.exclusive(() => this.#runTransaction(fn, options));
  }

  /**
   * Runs `fn` after every earlier transaction and before any later one: the one-writer order,
   * which sibling fakes over the same tables (`InMemoryRequestStore`) share, as row locks would.
   */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#tail.then(fn);
    this.#tail = run.catch(() => undefined);
    return run;
  }

  async #runTransaction<T>(fn: (tx: PipelineTx) => Promise<T>, options: { readonly fence?: number }): Promise<T> {
    this.faults.check("transaction");
    const staged: (() => void)[] = [];
    let wroteRun = false;
    const t = this.tables;
    const tx: PipelineTx = {
      loadRecords: async (ids) => ids.flatMap((id) => (t.records.has(id) ? [t.records.get(id)!] : [])),
      identityOwners: async (keys) => new Map(keys.flatMap((k) => (t.identities.has(k) ? [[k, this.#owner(k)]] : []))),
      loadFlights: async (flids) => this.#flights(flids),
      openRequests: async () =>
        [...t.requestTables.requests.values()].filter((r) => isAnswerableRequest(r.status)).sort((a, b) => Number(a.requestId) - Number(b.requestId)),
      loadReferences: async (rtypes) => [...t.requestTables.references.values()].filter((r) => rtypes.includes(r.rtype)),
      applyRun: async (decision) => {
        this.#validate(decision);
        wroteRun = true;
        staged.push(() => this.#apply(decision));
      },
      appendAudit: async (entry) => {
        staged.push(() => t.audits.push(entry));
      },
    };
    const result = await fn(tx);
    if (options.fence !== undefined && options.fence !== t.epoch) {
      throw new MsgxError("FENCED", `fence ${options.fence} is stale (epoch ${t.epoch})`);
    }
    this.faults.check("commit");
    for (const write of staged) write();
    if (wroteRun) t.generation += 1;
    this.#commitUnknown();
    return result;
  }

  async loadRunState(keys: readonly string[], flids: readonly string[]): Promise<LoadedRunState> {
    this.faults.check("loadRunState");
    const t = this.tables;
    return {
      generation: t.generation,
      owners: new Map(keys.flatMap((k) => (t.identities.has(k) ? [[k, this.#owner(k)]] : []))),
      flights: this.#flights(flids),
    };
  }

  commitRun(decision: RunDecision, options: CommitRunOptions): Promise<readonly number[]> {
    return this.exclusive(async () => {
      this.faults.check("commitRun");
      const t = this.tables;
      if (options.fence !== undefined && options.fence !== t.epoch) {
        throw new MsgxError("FENCED", `fence ${options.fence} is stale (epoch ${t.epoch})`);
      }
      if (decision.requests !== undefined && decision.requests.length > 0) {
        throw new MsgxError("INFRA", "a run that answers requests commits through transaction");
      }
      if (options.generation !== t.generation) {
        throw new StaleRunError(`state generation ${t.generation}, the run was decided at ${options.generation}`, { generation: t.generation });
      }
      if (this.#notAtHead(decision.records)) {
        throw new StaleRunError(`the run ${decision.records.map((r) => r.msgId).join(", ")} is not the unfinished records from the head`, { generation: t.generation, notAtHead: true });
      }
      const boundKeys = decision.bindings.flatMap((b) => {
        const owner = t.identities.get(b.identityKey);
        return b.replaces === undefined && owner !== undefined && owner !== b.msgId ? [b.identityKey] : [];
      });
      if (boundKeys.length > 0) {
        throw new StaleRunError(`identities bound already: ${boundKeys.join(", ")}`, { generation: t.generation, boundKeys });
      }
      this.#checkStored(decision, options.stored);
      this.#validate(decision);
      this.faults.check("commit");
      const eventIds = this.#apply(decision);
      for (const audit of decision.audits ?? []) t.audits.push(audit);
      this.#commitUnknown();
      return eventIds;
    });
  }

  /** Whether `records` are not exactly the unfinished records up to the highest of their ids. */
  #notAtHead(records: readonly ProcRecord[]): boolean {
    if (records.length === 0) return false;
    const ids = new Set(records.map((r) => r.msgId));
    const last = Math.max(...ids);
    const unfinished = [...this.tables.records.values()].filter((r) => r.msgId <= last && !isTerminal(r.status));
    return unfinished.length !== ids.size || unfinished.some((r) => !ids.has(r.msgId));
  }

  /** Ends a commit that applied its writes as a lost connection would, when armed (`commitUnknownNext`). */
  #commitUnknown(): void {
    if (this.commitUnknownNext) {
      this.commitUnknownNext = false;
      throw new MsgxError("COMMIT_UNKNOWN", "connection lost during COMMIT (simulated; it did commit)");
    }
  }

  /** The flights among `flids` as `loadFlights` gives them: stored ones, else the retired tombstone. */
  #flights(flids: readonly string[]): Map<string, FlightState> {
    const t = this.tables;
    return new Map(flids.flatMap((f) => { const found = t.flights.get(f) ?? t.retired.get(f); return found === undefined ? [] : [[f, found]]; }));
  }

  /**
   * `CommitRunOptions.stored` is trusted by a real store, which leaves a collection unwritten when
   * the run's rows equal the stored ones given: the fake refuses (INFRA) a run where that would
   * have left rows other than the decided ones, so every test and the simulation check the caller.
   */
  #checkStored(decision: RunDecision, stored: ReadonlyMap<string, FlightState> | undefined): void {
    if (stored === undefined) return;
    const rows = (f: FlightState | undefined, name: string) => JSON.stringify((f?.collections as Record<string, unknown> | undefined)?.[name] ?? []);
    for (const next of decision.flights) {
      const given = stored.get(next.flid);
      if (given === undefined) continue;
      const actual = this.#flights([next.flid]).get(next.flid);
      for (const name of new Set([...Object.keys(next.collections), ...Object.keys(given.collections), ...Object.keys(actual?.collections ?? {})])) {
        if (rows(given, name) === rows(next, name) && rows(actual, name) !== rows(given, name)) {
          throw new MsgxError("INFRA", `commitRun: flight ${next.flid} was given as stored with ${name} rows the store does not hold`);
        }
      }
    }
  }

  /** A bound key's owner as `identityOwners` gives it. */
  #owner(key: string): IdentityOwner {
    const boundAt = this.tables.identityBoundAt.get(key);
    return { msgId: this.tables.identities.get(key)!, contentHash: this.tables.identityHashes.get(key) ?? null, ...(boundAt === undefined ? {} : { boundAt }) };
  }

  /** The checks a database's constraints would make, so the fake fails where a real store fails. */
  #validate(decision: RunDecision): void {
    const fresh = new Set<string>();
    for (const b of decision.bindings) {
      const owner = this.tables.identities.get(b.identityKey);
      if (fresh.has(b.identityKey) || (b.replaces === undefined && owner !== undefined && owner !== b.msgId)) {
        throw new MsgxError("INFRA", `unique violation: identity ${b.identityKey} is bound to ${owner}`);
      }
      if (b.replaces !== undefined && owner !== b.replaces) {
        throw new MsgxError("INFRA", `identity ${b.identityKey} moved: held by ${owner}, expected ${b.replaces}`);
      }
      fresh.add(b.identityKey);
    }
    for (const r of decision.records) {
      if (!this.tables.records.has(r.msgId)) throw new MsgxError("INFRA", `no PROC_STATE row for ${r.msgId}`);
    }
    for (const c of decision.requests ?? []) {
      const stored = this.tables.requestTables.requests.get(c.request.requestId);
      if (stored?.version !== c.expectedVersion) {
        throw new MsgxError("INFRA", `request ${c.request.requestId} changed since it was loaded (version ${stored?.version}, expected ${c.expectedVersion})`);
      }
    }
  }

  /** Applies `decision`'s writes; returns the ids its events were given, in their order. */
  #apply(decision: RunDecision): number[] {
    const t = this.tables;
    const now = this.clock.now();
    for (const r of decision.records) {
      const before = t.records.get(r.msgId);
      t.records.set(r.msgId, r);
      if (isTerminal(r.status) && (before === undefined || !isTerminal(before.status))) {
        t.terminalLog.push({ msgId: r.msgId, status: r.status });
      }
    }
    for (const b of decision.bindings) {
      // A binding already held by the same message is left as it is, as the database's INSERT does.
      if (t.identities.get(b.identityKey) === b.msgId) continue;
      t.identities.set(b.identityKey, b.msgId);
      if (typeof b.contentHash === "string") t.identityHashes.set(b.identityKey, b.contentHash);
      else t.identityHashes.delete(b.identityKey);
      t.identityBoundAt.set(b.identityKey, now);
    }
    for (const f of decision.flights) t.flights.set(f.flid, f);
    const eventIds = decision.events.map((e) => this.insertEvent(e, now));
    for (const b of decision.backfill) {
      t.backfill.set(b.msgId, { ...b, attempts: 0, nextAttemptAt: now + BACKFILL_FIRST_DELAY_MS, lastError: null });
    }
    for (const c of decision.requests ?? []) t.requestTables.requests.set(c.request.requestId, c.request);
    for (const r of decision.references ?? []) t.requestTables.references.set(refKey(r.rtype, r.rkey), { ...r, updatedAt: now });
    for (const e of decision.snapshots ?? []) t.snapLog.push({ ...e, snapId: t.nextSnapId++, loggedAt: now });
    return eventIds;
  }

  async audits(limit: number, beforeAuditId?: number): Promise<readonly AuditRow[]> {
    this.faults.check("audits");
    // Ids are positions, 1-based: rows are only ever appended.
    const rows = this.tables.audits.map((a, i) => ({ auditId: i + 1, ...a }));
    return rows.filter((r) => beforeAuditId === undefined || r.auditId < beforeAuditId).reverse().slice(0, limit);
  }

  async dueBackfill(now: number, limit: number): Promise<readonly BackfillTodo[]> {
    this.faults.check("dueBackfill");
    return [...this.tables.backfill.values()]
      .filter((b) => b.nextAttemptAt <= now)
      .sort((a, b) => a.nextAttemptAt - b.nextAttemptAt || a.msgId - b.msgId)
      .slice(0, limit);
  }

  async completeBackfill(msgIds: readonly number[]): Promise<void> {
    this.faults.check("completeBackfill");
    for (const id of msgIds) this.tables.backfill.delete(id);
  }

  async deferBackfill(todos: readonly BackfillTodo[]): Promise<void> {
    this.faults.check("deferBackfill");
    for (const t of todos) if (this.tables.backfill.has(t.msgId)) this.tables.backfill.set(t.msgId, t);
  }

  #sorted(): ProcRecord[] {
    return [...this.tables.records.values()].sort((a, b) => a.msgId - b.msgId);
  }
}

