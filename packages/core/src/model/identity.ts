import type { Meta } from "./meta.js";

/**
 * What happens to a message whose identity is already bound to an earlier message with a
 * different body (WIRE.md "SEQN and identity"): `skip` (default) ends it SKIPPED
 * `duplicate-of:<id> content-differs`; `dead` holds it DEAD(PROTOCOL) with that reason for review.
 * Either way a `content-differs` warning is logged and counted.
 */
export type ContentDiffersPolicy = "skip" | "dead";

/**
 * How a business identity is formed, and what a taken one means. `includeDayBoundary` and
 * `includeContent` are fixed once in production: changing them changes what counts as a
 * duplicate (SPEC §2.2).
 */
export interface IdentityOptions {
  /** Append the operation day (the date part of META DTTM) to the key. Off by default. */
  readonly includeDayBoundary: boolean;
  /**
   * Append META DTTM and the SHA-256 of the raw text to the key: a reused SEQN with another body
   * or time is a new message, and only an identical re-insert dedupes. Off by default.
   */
  readonly includeContent?: boolean;
  /** A taken identity whose earlier body differs. Default `skip`. */
  readonly onContentDiffers?: ContentDiffersPolicy;
  /**
   * The dedupe window in milliseconds (WIRE.md "SEQN and identity"): a message with a differing
   * body whose identity was bound longer ago than this is a new message that takes the identity
   * over; inside it, `onContentDiffers` applies. An identical re-insert dedupes at any age.
   * Default {@link DEFAULT_IDENTITY_WINDOW_MS}.
   */
  readonly window?: number;
}

/**
 * Three days: far above a redelivery (minutes), far below a wrap of a six-digit SEQN counter
 * (1,000,000 messages); the reasoning is in docs/configuration.md (`identity.window`).
 */
export const DEFAULT_IDENTITY_WINDOW_MS = 3 * 24 * 60 * 60 * 1000;

export const DEFAULT_IDENTITY_OPTIONS: IdentityOptions = { includeDayBoundary: false, includeContent: false, onContentDiffers: "skip", window: DEFAULT_IDENTITY_WINDOW_MS };

/**
 * The business identity of a message: `SNDR|TYPE|STYP|SEQN`, then `|yyyyMMdd` with the day
 * boundary, then `|<DTTM>|<sha256>` with `includeContent` (when the hash is known).
 */
export const Identity = {
  of(meta: Meta, options: IdentityOptions = DEFAULT_IDENTITY_OPTIONS, contentHash: string | null = null): string {
    const base = `${meta.sndr}|${meta.type}|${meta.styp}|${meta.seqn}`;
    const day = options.includeDayBoundary ? `${base}|${meta.dttm.slice(0, 8)}` : base;
    return options.includeContent === true && contentHash !== null ? `${day}|${meta.dttm}|${contentHash}` : day;
  },
} as const;
