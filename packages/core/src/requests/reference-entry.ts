import type { RefFields } from "../model/reference-schema.js";

/** A `REF_MASTER` row as a run reads and decides it. */
export interface RefState {
  readonly rtype: string;
  readonly rkey: string;
  /** The record's fields as decoded (`model/reference-schema.ts`); a tombstone keeps its last live fields. */
  readonly fields: RefFields;
  /**
   * True once the key was deleted (a DEL naming it, or a DNLD/RESP of its type without it): the
   * row stays as a tombstone, so a key that comes back counts its version on.
   */
  readonly deleted: boolean;
  /** Rises by exactly one with every change of the key, deletes included; 1 when first stored. */
  readonly version: number;
}

/** One change of a `REF_MASTER` row, decided by the reference processor. */
export interface RefChange extends RefState {
  /** The message that made it. */
  readonly msgId: number;
}

/** A stored `REF_MASTER` row: `(rtype, rkey)` is unique. */
export interface RefEntry extends RefChange {
  /** When the pipeline wrote it (epoch ms). */
  readonly updatedAt: number;
}

/** The key of a reference row in maps: `rtype` and `rkey` joined by a separator neither holds. */
export const refKey = (rtype: string, rkey: string): string => `${rtype}\u0000${rkey}`;
