import type { DecodedMessage } from "../model/decoded-message.js";
import type { Meta } from "../model/meta.js";
import { REFERENCE_TYPES } from "../model/reference-schema.js";
import type { TypePolicy } from "./type-policy.js";

/**
 * What decoding one raw message gives. A failure says its class (SPEC §2.1) and, when the
 * envelope itself decoded, the META (so identity can bind and the mailbox can be backfilled).
 * - `MALFORMED`: not well-formed, a DOCTYPE/entity, a limit exceeded, no `MSG` root, bad META.
 * - `PROTOCOL`: a valid envelope whose payload the upstream contract forbids (missing body,
 *   a value outside its domain, a non-empty FDEL).
 * - `CODEC_ERROR`: a valid envelope this decoder cannot handle yet.
 */
export type DecodeResult =
  | { readonly ok: true; readonly message: DecodedMessage }
  | {
      readonly ok: false;
      readonly errorClass: "MALFORMED" | "PROTOCOL" | "CODEC_ERROR";
      readonly reason: string;
      readonly meta: Meta | null;
    };

/** Hard caps against hostile input. Exceeding any is MALFORMED; parsing stops at once. */
export interface CodecLimits {
  /** Raw text length in UTF-8 bytes. */
  readonly maxBytes: number;
  /** Element nesting depth. */
  readonly maxDepth: number;
  /** Attributes on one element. */
  readonly maxAttributes: number;
  /** Elements in the whole document. */
  readonly maxElements: number;
}

export interface CodecOptions {
  readonly limits: CodecLimits;
  /**
   * What is processed, ignored or unsupported, by `TYPE` or `FLOP/<STYP>`, over the defaults of
   * the kinds table (`KINDS` in type-policy.ts). Ignored and unsupported bodies are not read.
   */
  readonly typePolicy: TypePolicy;
  /** Types decoded as reference data (`<reftype>/RESP|DNLD|ADD|UPD|DEL`); processed by default. */
  readonly referenceTypes: readonly string[];
  /** (ours) Accept 12-digit `yyyyMMddHHmm` and 14-digit `yyyyMMddHHmmss` body times. Off by default. */
  readonly numericTimeTolerance: boolean;
}

export const DEFAULT_CODEC_OPTIONS: CodecOptions = {
  limits: { maxBytes: 4 * 1024 * 1024, maxDepth: 32, maxAttributes: 32, maxElements: 200_000 },
  typePolicy: {},
  referenceTypes: REFERENCE_TYPES,
  numericTimeTolerance: false,
};
