import { MsgxError } from "../errors/msgx-error.js";
import { FaultPlan } from "../testing/fault-plan.js";
import { newRequestTables, type InMemoryRequestTables } from "./in-memory-request-tables.js";
import type { RequestDraft, RequestRecord } from "./request-record.js";
import { isOpenRequest } from "./request-status.js";
import { assertRequestFilter, type RequestFilter, type RequestStore, type RequestTx } from "./request-store.js";

/** What the fake shares with an `InMemoryPipelineStore`: its tables and its one-writer order. */
export interface InMemoryRequestBackend {
  readonly tables: { readonly requestTables: InMemoryRequestTables };
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
}

/**
 * The in-memory `RequestStore`: maps, one writer at a time, writes staged and applied at commit.
 * Given an `InMemoryPipelineStore` it works on that store's tables and in its transaction order
 * (the pipeline transaction sees the same requests, as in one database); alone it has its own.
 * Fault hooks: `faults` (outage, fail next N of an operation).
 */
export class InMemoryRequestStore implements RequestStore {
  readonly faults = new FaultPlan("request-store");
  readonly tables: InMemoryRequestTables;
  readonly #exclusive: <T>(fn: () => Promise<T>) => Promise<T>;
  #tail: Promise<unknown> = Promise.resolve();

  constructor(backend?: InMemoryRequestBackend) {
    this.tables = backend?.tables.requestTables ?? newRequestTables();
    this.#exclusive = backend ? (fn) => backend.exclusive(fn) : (fn) => this.#own(fn);
  }

  #own<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#tail.then(fn);
    this.#tail = run.catch(() => undefined);
    return run;
  }

  transaction<T>(fn: (tx: RequestTx) => Promise<T>): Promise<T> {
    return this.#exclusive(async () => {
      this.faults.check("transaction");
      const t = this.tables;
      const staged: (() => void)[] = [];
      const view = new Map(t.requests);
      const seqns = new Map(t.seqns);
      let nextId = t.nextRequestId;
      const tx: RequestTx = {
        lastSeqn: async (sndr) => seqns.get(sndr) ?? null,
        saveSeqn: async (sndr, seqn) => {
          seqns.set(sndr, seqn);
          staged.push(() => t.seqns.set(sndr, seqn));
        },
        openOfType: async (type) => [...view.values()].find((r) => r.requestType === type && isOpenRequest(r.status)),
        insert: async (draft: RequestDraft) => {
          if ([...view.values()].some((r) => r.requestType === draft.requestType && isOpenRequest(r.status)) && isOpenRequest(draft.status)) {
            throw new MsgxError("CONFLICT", `an open ${draft.requestType} request exists (unique index)`);
          }
          const record: RequestRecord = { requestId: String(nextId++), ...draft };
          view.set(record.requestId, record);
          staged.push(() => {
            t.requests.set(record.requestId, record);
            t.nextRequestId = Math.max(t.nextRequestId, Number(record.requestId) + 1);
          });
          return record;
        },
        update: async (next, expectedVersion) => {
          if (view.get(next.requestId)?.version !== expectedVersion) return false;
          view.set(next.requestId, next);
          staged.push(() => t.requests.set(next.requestId, next));
          return true;
        },
      };
      const result = await fn(tx);
      this.faults.check("commit");
      for (const write of staged) write();
      return result;
    });
  }

  update(next: RequestRecord, expectedVersion: number): Promise<boolean> {
    return this.#exclusive(async () => {
      this.faults.check("update");
      if (this.tables.requests.get(next.requestId)?.version !== expectedVersion) return false;
      this.tables.requests.set(next.requestId, next);
      return true;
    });
  }

  async get(requestId: string): Promise<RequestRecord | undefined> {
    this.faults.check("get");
    return this.tables.requests.get(requestId);
  }

  async open(): Promise<readonly RequestRecord[]> {
    this.faults.check("open");
    return this.#sorted().filter((r) => isOpenRequest(r.status));
  }

  async list(filter: RequestFilter): Promise<readonly RequestRecord[]> {
    assertRequestFilter(filter);
    this.faults.check("list");
    return this.#sorted()
      .reverse()
      .filter(
        (r) =>
          (filter.statuses === undefined || filter.statuses.includes(r.status)) &&
          (filter.requestType === undefined || r.requestType === filter.requestType) &&
          (filter.beforeId === undefined || Number(r.requestId) < Number(filter.beforeId)),
      )
      .slice(0, filter.limit);
  }

  #sorted(): RequestRecord[] {
    return [...this.tables.requests.values()].sort((a, b) => Number(a.requestId) - Number(b.requestId));
  }
}
