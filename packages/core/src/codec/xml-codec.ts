import type { Meta } from "../model/meta.js";
import type { MsgKind } from "../model/msg-kind.js";
import { CodecFault } from "./codec-fault.js";
import { DEFAULT_CODEC_OPTIONS } from "./decode-result.js";
import type { CodecLimits, CodecOptions, DecodeResult } from "./decode-result.js";
import { decodeFlop } from "./flop-body.js";
import { decodeMeta } from "./meta-decoder.js";
import { decodeReference, REFERENCE_SUBTYPES } from "./reference-body.js";
import { decodeSchd } from "./schd-body.js";
import { decodeSchs } from "./schs-body.js";
import { runToEnd, type Stepped } from "./stepped.js";
import { typeRule } from "./type-policy.js";
import { DEFAULT_PARSE_SLICE, parseXmlTreeSteps } from "./xml-tree.js";
import type { XmlElement } from "./xml-tree.js";

const describe = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** Options over the defaults; a key given as `undefined` keeps its default. */
function mergeOptions(options: Partial<CodecOptions>): CodecOptions {
  const d = DEFAULT_CODEC_OPTIONS;
  const limits: Partial<CodecLimits> = options.limits ?? {};
  return {
    limits: {
      maxBytes: limits.maxBytes ?? d.limits.maxBytes,
      maxDepth: limits.maxDepth ?? d.limits.maxDepth,
      maxAttributes: limits.maxAttributes ?? d.limits.maxAttributes,
      maxElements: limits.maxElements ?? d.limits.maxElements,
    },
    typePolicy: options.typePolicy ?? d.typePolicy,
    referenceTypes: options.referenceTypes ?? d.referenceTypes,
    numericTimeTolerance: options.numericTimeTolerance ?? d.numericTimeTolerance,
  };
}

/**
 * Chooses the kind by TYPE/STYP through the type policy and the kinds table (type-policy.ts,
 * WIRE.md "Kinds") and decodes the body it implies, yielding after every `every` records of a
 * large body. An ignored or unsupported message's body is not read.
 */
function* decodeBody(msg: XmlElement, meta: Meta, options: CodecOptions, every: number): Stepped<MsgKind> {
  const { type, styp } = meta;
  const rule = typeRule(type, styp, options.typePolicy, options.referenceTypes);
  if (rule.disposition === "ignore") return rule.key === type ? { kind: "ignorable", type } : { kind: "ignorable", type, styp };
  const unsupported: MsgKind = { kind: "unsupported", type, styp };
  if (rule.disposition === "unsupported") return unsupported;
  switch (rule.row?.format) {
    case "schd":
      return yield* decodeSchd(msg, styp, options.numericTimeTolerance, every);
    case "flop":
      return decodeFlop(msg, styp, options.numericTimeTolerance);
    case "reference":
      return REFERENCE_SUBTYPES.includes(styp) ? yield* decodeReference(msg, type, styp, every) : unsupported;
    case "schs":
      return yield* decodeSchs(msg, styp, every);
    case undefined:
      return unsupported;
  }
}

/**
 * Decodes one raw SIS message (WIRE.md) into its META and what it asks for.
 *
 * Pure and total: no I/O, no clock; it never throws and never expands an entity, whatever `raw`
 * holds, and its cost is bounded by `options.limits`. The result classes:
 * - `MALFORMED` (meta `null`): not a string, over a limit, not well-formed, a DOCTYPE or entity,
 *   a root other than `MSG`, or a missing/invalid META field;
 * - `PROTOCOL` (with meta): the payload breaks the contract (missing body, bad RECS, a value
 *   outside its domain, a non-empty FDEL, a row without key, a duplicate key);
 * - `CODEC_ERROR` (with meta): a shape the contract allows but this decoder cannot represent;
 * - `ok: true`: a `DecodedMessage`, possibly of kind `unsupported` or `ignorable` (by the type
 *   policy; their bodies are not read). Absent elements stay absent, empty elements decode to `null`.
 *
 * @param options merged over {@link DEFAULT_CODEC_OPTIONS}; `limits` may be given in part.
 */
export function decodeMessage(raw: string, options: Partial<CodecOptions> = {}): DecodeResult {
  return runToEnd(decodeMessageSteps(raw, options));
}

/**
 * {@link decodeMessage}, pausing between slices of a large document: `pause` is awaited after
 * every `slice` code units parsed (never for a document of one slice or less), so the caller's
 * other work runs while a document of megabytes is read. The runner passes a pause that yields to
 * the event loop. The result is `decodeMessage(raw, options)`'s, except that the wording of a
 * refusal's `reason` may depend on where the slices fall (its class and META do not); with the
 * same slice size the same input always gives the same result.
 */
export async function decodeMessageInSlices(
  raw: string,
  options: Partial<CodecOptions>,
  pause: () => Promise<void>,
  slice: number = DEFAULT_PARSE_SLICE,
): Promise<DecodeResult> {
  if (!Number.isInteger(slice) || slice < 1) throw new RangeError(`slice must be a positive integer, got ${slice}`);
  const steps = decodeMessageSteps(raw, options, slice);
  for (;;) {
    const next = steps.next();
    if (next.done === true) return next.value;
    await pause();
  }
}

/** A record of a SCHD or reference body stands for ~128 code units of parsing, for pacing. */
const CODE_UNITS_PER_RECORD = 128;

function* decodeMessageSteps(raw: string, options: Partial<CodecOptions>, slice: number = DEFAULT_PARSE_SLICE): Stepped<DecodeResult> {
  const merged = mergeOptions(options);
  const every = Math.max(1, Math.floor(slice / CODE_UNITS_PER_RECORD));
  let meta: Meta | null = null;
  try {
    const tree = yield* parseXmlTreeSteps(raw, merged.limits, "MSG", slice);
    if (!tree.ok) return { ok: false, errorClass: "MALFORMED", reason: tree.reason, meta: null };
    const decoded = decodeMeta(tree.root);
    if (!decoded.ok) return { ok: false, errorClass: "MALFORMED", reason: decoded.reason, meta: null };
    meta = decoded.meta;
    return { ok: true, message: { meta, body: yield* decodeBody(tree.root, meta, merged, every) } };
  } catch (e) {
    if (e instanceof CodecFault) return { ok: false, errorClass: e.errorClass, reason: e.message, meta };
    // Not expected: a decoder bug must still not take the pump down. Retriable once META is known.
    return meta === null
      ? { ok: false, errorClass: "MALFORMED", reason: `decoder failure: ${describe(e)}`, meta }
      : { ok: false, errorClass: "CODEC_ERROR", reason: `decoder failure: ${describe(e)}`, meta };
  }
}
