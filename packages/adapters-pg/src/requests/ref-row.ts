import type { RefEntry } from "./core-requests.js";
import { fromJson, toMs, toNumber } from "../rows/values.js";

/** A `ref_master` row as the drivers return it. */
export interface RefRow {
  readonly rtype: string;
  readonly rkey: string;
  readonly attributes: unknown;
  readonly deleted: boolean;
  readonly last_msg_id: unknown;
  readonly updated_at: unknown;
}

/** The entry of a row. */
export const refFromRow = (r: RefRow): RefEntry => ({
  rtype: r.rtype,
  rkey: r.rkey,
  attributes: fromJson<Record<string, string>>(r.attributes),
  deleted: r.deleted,
  msgId: toNumber(r.last_msg_id),
  updatedAt: toMs(r.updated_at),
});
