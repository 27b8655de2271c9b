/**
 * The keys of the replay version guard (`ReplayPreflight.expect`): `flight:<FLID>` for a flight,
 * `reference:<RTYPE>:<RKEY>` for a reference row (a reference type has no colon; the key is as
 * sent, colons included). One string space, so one map holds both kinds.
 */
export type VersionedKey = { readonly kind: "flight"; readonly flid: string } | { readonly kind: "reference"; readonly rtype: string; readonly rkey: string };

export const flightVersionKey = (flid: string): string => `flight:${flid}`;

export const referenceVersionKey = (rtype: string, rkey: string): string => `reference:${rtype}:${rkey}`;

/** The flight or reference row a guard key names; undefined for a string of neither form. */
export function parseVersionKey(key: string): VersionedKey | undefined {
  if (key.startsWith("flight:") && key.length > "flight:".length) return { kind: "flight", flid: key.slice("flight:".length) };
  if (!key.startsWith("reference:")) return undefined;
  const rest = key.slice("reference:".length);
  const colon = rest.indexOf(":");
  return colon > 0 ? { kind: "reference", rtype: rest.slice(0, colon), rkey: rest.slice(colon + 1) } : undefined;
}
