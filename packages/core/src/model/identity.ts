import type { Meta } from "./meta.js";

/**
 * How a business identity is formed. Fixed once in production: changing it changes what counts as
 * a duplicate (SPEC §2.2).
 */
export interface IdentityOptions {
  /** Append the operation day (the date part of META DTTM) to the key. Off by default. */
  readonly includeDayBoundary: boolean;
}

export const DEFAULT_IDENTITY_OPTIONS: IdentityOptions = { includeDayBoundary: false };

/** The business identity of a message: `SNDR|TYPE|STYP|SEQN`, optionally `|yyyyMMdd`. */
export const Identity = {
  of(meta: Meta, options: IdentityOptions = DEFAULT_IDENTITY_OPTIONS): string {
    const base = `${meta.sndr}|${meta.type}|${meta.styp}|${meta.seqn}`;
    return options.includeDayBoundary ? `${base}|${meta.dttm.slice(0, 8)}` : base;
  },
} as const;
