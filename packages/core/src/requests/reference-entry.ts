/** One change of a `REF_MASTER` row, decided by the reference processor. */
export interface RefChange {
  readonly rtype: string;
  readonly rkey: string;
  /** The record's fields as the wire gave them (element name → text), kept raw. */
  readonly attributes: Readonly<Record<string, string>>;
  /** True for a `DEL`: the row stays as a tombstone with the attributes the DEL carried. */
  readonly deleted: boolean;
  /** The message that set it. */
  readonly msgId: number;
}

/** A stored `REF_MASTER` row: `(rtype, rkey)` is unique. */
export interface RefEntry extends RefChange {
  /** When the pipeline wrote it (epoch ms). */
  readonly updatedAt: number;
}

/** The key of a reference row in maps: `rtype` and `rkey` joined by a separator neither holds. */
export const refKey = (rtype: string, rkey: string): string => `${rtype}\u0000${rkey}`;
