import { assertRefListQuery, type RefEntry, type ReferenceReader, type RefListQuery } from "@msgx/core";
import type { Kysely } from "kysely";
import { pgCall } from "../pg-error-map.js";
import type { Db } from "../queries/db.js";
import type { MsgxDatabase } from "../rows/tables.js";
import { getReference, listReferences, referenceTypes } from "../queries/ref-master.js";

/** `ReferenceReader` over `ref_master`, which the pipeline transaction writes (`PgPipelineTx.applyRun`). */
export class PgReferenceReader implements ReferenceReader {
  readonly #db: Db;

  constructor(db: Kysely<MsgxDatabase>) {
    this.#db = db;
  }

  get(rtype: string, rkey: string): Promise<RefEntry | undefined> {
    return pgCall("reference get", () => getReference(this.#db, rtype, rkey));
  }

  list(query: RefListQuery): Promise<readonly RefEntry[]> {
    assertRefListQuery(query);
    return pgCall("reference list", () => listReferences(this.#db, query));
  }

  types(): Promise<readonly { readonly rtype: string; readonly live: number }[]> {
    return pgCall("reference types", () => referenceTypes(this.#db));
  }
}
