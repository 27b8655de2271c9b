import { MsgxError } from "@msgx/core";

/**
 * A `BIGINT` id from the driver (a number, or a string/bigint when the pool uses
 * `supportBigNumbers`) as a JS number. Ids past 2^53 cannot be represented exactly: that is an
 * `INFRA` error naming the value, never a silently rounded id.
 */
export function toSafeId(value: unknown, what: string): number {
  const n = typeof value === "number" ? value : typeof value === "string" || typeof value === "bigint" ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 0 || (typeof value !== "number" && String(value) !== String(n))) {
    throw new MsgxError("INFRA", `${what}: id ${String(value)} is not a safe integer`);
  }
  return n;
}

/** Checks ids handed to the adapter before they go into SQL. */
export function assertIds(ids: readonly number[], what: string): void {
  for (const id of ids) {
    if (!Number.isSafeInteger(id) || id < 0) throw new RangeError(`${what}: not a mailbox id: ${id}`);
  }
}
