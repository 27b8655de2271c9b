import { DEFAULT_CODEC_OPTIONS, DEFAULT_UNSUPPORTED_POLICY, TypeDisposition, type TypePolicy } from "@msgx/core";
import { z } from "zod";

const positive = (d: number) => z.coerce.number().int().min(1).default(d);
const bool = (d: boolean) =>
  z
    .union([z.boolean(), z.enum(["true", "false", "1", "0"])])
    .default(d)
    .transform((v) => v === true || v === "true" || v === "1");

const TYPE = /^[A-Za-z]{3,4}$/;
const POLICY_KEY = /^(?:[A-Za-z]{3,4}|FLOP\/[A-Za-z]{1,4})$/;
const DISPOSITIONS = Object.values(TypeDisposition);

/**
 * A list of TYPEs: a JSON array in the file, or comma-separated text in a variable
 * (`MSGX_CODEC_REFERENCE_TYPES="AIRL,ARPT"`). Spaces around entries are dropped; each is 3–4 letters.
 */
const typeList = (d: readonly string[]) =>
  z
    .union([z.array(z.string()), z.string().transform((text) => (text.trim() === "" ? [] : text.split(",").map((t) => t.trim())))])
    .pipe(z.array(z.string().regex(TYPE, "each entry must be a TYPE of 3–4 letters")))
    .default([...d]);

/**
 * Parses `TYPE=disposition` entries separated by commas (`SCHS=ignore,XYZ=process,FLOP/ESTT=ignore`),
 * the form a variable can carry; the file may give the same as a JSON object.
 */
function policyEntries(text: string, ctx: z.RefinementCtx): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of text.split(",").map((e) => e.trim()).filter((e) => e !== "")) {
    const [key, value, ...rest] = entry.split("=").map((p) => p.trim());
    if (key === undefined || value === undefined || rest.length > 0 || key === "") {
      ctx.addIssue({ code: "custom", message: `"${entry}" is not TYPE=process|ignore|unsupported` });
      continue;
    }
    if (Object.hasOwn(out, key)) ctx.addIssue({ code: "custom", message: `${key} is set twice` });
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** Operator settings per TYPE and per FLOP subtype (`FLOP/<STYP>`): process, ignore or unsupported. */
const typePolicy = z
  .unknown()
  .transform((value, ctx) => (typeof value === "string" ? policyEntries(value, ctx) : value))
  .pipe(
    z
      .record(z.string(), z.enum(DISPOSITIONS as [TypeDisposition, ...TypeDisposition[]], { message: "must be process, ignore or unsupported" }))
      .superRefine((policy, ctx) => {
        for (const key of Object.keys(policy)) {
          if (!POLICY_KEY.test(key)) ctx.addIssue({ code: "custom", path: [key], message: "not a TYPE (3–4 letters) or FLOP/<STYP>" });
        }
      }),
  )
  .default({})
  .transform((p): TypePolicy => p);

/** `codec.*`: the decoder's caps and tolerances (`CodecOptions`). */
export const codecSection = z
  .object({
    /** Hard caps against hostile input; exceeding one is MALFORMED. */
    limits: z
      .object({
        maxBytes: positive(DEFAULT_CODEC_OPTIONS.limits.maxBytes),
        maxDepth: positive(DEFAULT_CODEC_OPTIONS.limits.maxDepth),
        maxAttributes: positive(DEFAULT_CODEC_OPTIONS.limits.maxAttributes),
        maxElements: positive(DEFAULT_CODEC_OPTIONS.limits.maxElements),
      })
      .strict()
      .prefault({}),
    /** (ours) Accept 12/14-digit numeric body times. */
    numericTimeTolerance: bool(DEFAULT_CODEC_OPTIONS.numericTimeTolerance),
    /** The TYPEs decoded as reference data (default the 23 upstream types). */
    referenceTypes: typeList(DEFAULT_CODEC_OPTIONS.referenceTypes),
  })
  .strict()
  .prefault({});

/** `types.*`: what is processed, ignored or unsupported, and the budget of unsupported messages. */
export const typesSection = z
  .object({
    policy: typePolicy,
    unsupported: z
      .object({
        /** `fail`: FAILED(UNSUPPORTED) under the short budget, then DEAD(EXHAUSTED). `skip`: SKIPPED at once. */
        mode: z.enum(["fail", "skip"]).default(DEFAULT_UNSUPPORTED_POLICY.mode),
        attempts: positive(DEFAULT_UNSUPPORTED_POLICY.maxAttempts),
        /** Never above `pipeline.headDeadlineMs` (checked with the whole configuration). */
        headMs: positive(DEFAULT_UNSUPPORTED_POLICY.headDeadlineMs),
      })
      .strict()
      .prefault({}),
  })
  .strict()
  .prefault({});

/** `flight.*`: the flight processors' switches (`FlightProcessingOptions`). */
export const flightSection = z
  .object({
    /** A SCHD package whose RECS is missing or wrong: `reject` (DEAD(PROTOCOL)) or `warn` (applied, `recs-mismatch` warning). */
    schdRecsCheck: z.enum(["reject", "warn"]).default("reject"),
    /** SCHD/ADD and SCHD/UPD applied as SCHD/ADFT, as upstream does. */
    schdAddUpdAsAdft: bool(true),
    /** (ours) A PROTOCOL fault in one FLOP block refuses the `message` or only that `block` (warning). */
    flopFaultScope: z.enum(["message", "block"]).default("message"),
    /** (ours) An empty replace-group collection or VIPF in its FLOP: `clear` the set or `reject` (PROTOCOL). */
    flopEmptyCollection: z.enum(["clear", "reject"]).default("clear"),
    /** (ours) An empty ACFT, FLIN or FLTY in its FLOP: `reject` (PROTOCOL) or `clear`. */
    flopRequiredEmpty: z.enum(["reject", "clear"]).default("reject"),
    /** (ours) A FLOP/PSDT row that keeps its key and stand keeps its push and tractor values. */
    psdtKeepsStandRowFields: bool(true),
  })
  .strict()
  .prefault({});
