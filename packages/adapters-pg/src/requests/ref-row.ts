import type { RefEntry, RefFields } from "@msgx/core";
import { fromJson, toMs, toNumber } from "../rows/values.js";

/** A `ref_master` row as the drivers return it. */
export interface RefRow {
  readonly rtype: string;
  readonly rkey: string;
  readonly fields: unknown;
  readonly deleted: boolean;
  readonly version: unknown;
  readonly last_msg_id: unknown;
  readonly updated_at: unknown;
}

/** The entry of a row. */
export const refFromRow = (r: RefRow): RefEntry => ({
  rtype: r.rtype,
  rkey: r.rkey,
  fields: fromJson<RefFields>(r.fields),
  deleted: r.deleted,
  version: toNumber(r.version),
  msgId: toNumber(r.last_msg_id),
  updatedAt: toMs(r.updated_at),
});
