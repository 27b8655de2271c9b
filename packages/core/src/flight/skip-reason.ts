/**
 * A reason naming flights: `<prefix>:<first FLID>`, plus `(+N)` when N more are involved, so a
 * snapshot of hundreds of flights still gives a short reason.
 */
export function flidReason(prefix: string, flids: readonly string[]): string | undefined {
  const [first] = flids;
  if (first === undefined) return undefined;
  return flids.length === 1 ? `${prefix}:${first}` : `${prefix}:${first}(+${flids.length - 1})`;
}

/** Joins the reasons that are present with `;`, or undefined when none is. */
export function joinReasons(...reasons: (string | undefined)[]): string | undefined {
  const present = reasons.filter((r): r is string => r !== undefined);
  return present.length === 0 ? undefined : present.join(";");
}
