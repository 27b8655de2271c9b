/**
 * Advisory lock keys. PostgreSQL advisory locks are database-wide, so two msgx deployments in
 * different schemas of one database need different keys: both keys are derived from a namespace
 * (the schema name is the natural choice). The two-int form is used so they never collide with
 * bigint-keyed locks of other tools (kysely's migration lock is one).
 */
export interface LockKeys {
  /** Taken with `pg_advisory_xact_lock` by every pipeline transaction and by an epoch bump. */
  readonly pipeline: readonly [number, number];
  /** Held with `pg_advisory_lock` (session) by the leader on its dedicated connection. */
  readonly leadership: readonly [number, number];
}

/** `msgx` as a signed int4: the class id of every msgx lock. */
const MSGX_CLASS = 0x6d736778 | 0;

/** FNV-1a 32-bit, as a signed int4. */
export function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    h ^= byte;
    h = Math.imul(h, 0x01000193);
  }
  return h | 0;
}

export const DEFAULT_LOCK_NAMESPACE = "msgx";

/** The lock keys of a namespace; stores and leadership of one deployment must use the same one. */
export const lockKeys = (namespace: string = DEFAULT_LOCK_NAMESPACE): LockKeys => ({
  pipeline: [MSGX_CLASS, fnv1a(`${namespace}:pipeline`)],
  leadership: [MSGX_CLASS, fnv1a(`${namespace}:leadership`)],
});
