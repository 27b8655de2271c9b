import { assertRequestFilter, MsgxError, type RequestDraft, type RequestFilter, type RequestRecord, type RequestStore, type RequestTx } from "@msgx/core";
import type { Kysely } from "kysely";
import { mapPgError, pgCall } from "../pg-error-map.js";
import { pgTransaction } from "../pg-transaction.js";
import type { Db } from "../queries/db.js";
import type { MsgxDatabase } from "../rows/tables.js";
import { getRequest, insertRequest, listRequests, lockSeqn, openOfType, openRequests, saveSeqn, updateRequest } from "../queries/req-track.js";

/** The unique index that allows one open request per type (migration 0003). */
const OPEN_INDEX = "req_track_open_idx";

/** One request-store transaction on one connection. */
class PgRequestTx implements RequestTx {
  constructor(private readonly db: Db) {}

  lastSeqn(sndr: string): Promise<number | null> {
    return pgCall("request lastSeqn", () => lockSeqn(this.db, sndr));
  }
  saveSeqn(sndr: string, seqn: number): Promise<void> {
    return pgCall("request saveSeqn", () => saveSeqn(this.db, sndr, seqn));
  }
  openOfType(requestType: string): Promise<RequestRecord | undefined> {
    return pgCall("request openOfType", () => openOfType(this.db, requestType));
  }
  async insert(draft: RequestDraft): Promise<RequestRecord> {
    try {
      return await insertRequest(this.db, draft);
    } catch (e) {
      const err = e as { code?: unknown; constraint?: unknown; message?: unknown };
      if (err.code === "23505" && (err.constraint === OPEN_INDEX || String(err.message).includes(OPEN_INDEX))) {
        throw new MsgxError("CONFLICT", `an open ${draft.requestType} request exists (${OPEN_INDEX})`, { cause: e });
      }
      throw mapPgError(e, "request insert");
    }
  }
  update(next: RequestRecord, expectedVersion: number): Promise<boolean> {
    return pgCall("request update", () => updateRequest(this.db, next, expectedVersion));
  }
}

/**
 * `RequestStore` on PostgreSQL (or PGlite) through kysely, over `req_track` and `req_counter`
 * (migrations 0003 and 0007) in the pipeline's schema; the pipeline transaction
 * (`PgPipelineTx.openRequests` / `applyRun`) reads and closes the same rows. Tables are
 * unqualified: put the schema on the connections' search path (`pgPoolConfig` does).
 *
 * Updates are one compare-and-set statement (`WHERE version = …`). A registration transaction
 * locks the SEQN counter row first, so registrations serialize, then the open request of its type.
 */
export class PgRequestStore implements RequestStore {
  readonly #db: Db;

  constructor(db: Kysely<MsgxDatabase>) {
    this.#db = db;
  }

  async transaction<T>(fn: (tx: RequestTx) => Promise<T>): Promise<T> {
    return pgTransaction(this.#db, "request", async (trx) => {
      return await fn(new PgRequestTx(trx));
    });
  }

  update(next: RequestRecord, expectedVersion: number): Promise<boolean> {
    return pgCall("request update", () => updateRequest(this.#db, next, expectedVersion));
  }

  get(requestId: string): Promise<RequestRecord | undefined> {
    return pgCall("request get", () => getRequest(this.#db, requestId));
  }

  open(): Promise<readonly RequestRecord[]> {
    return pgCall("request open", () => openRequests(this.#db));
  }

  list(filter: RequestFilter): Promise<readonly RequestRecord[]> {
    assertRequestFilter(filter);
    return pgCall("request list", () => listRequests(this.#db, filter));
  }
}

