import { flopGroup } from "../model/flop-matrix.js";
import type { MsgKindName } from "../model/msg-kind.js";
import type { ValueOf } from "../base/states.js";

/** Which kinds have a processor: a `ProcessorTable` (processing layer) is one; the codec needs only its keys. */
export type ProcessorsByKind = Readonly<Partial<Record<MsgKindName, unknown>>>;

/**
 * What msgx does with a message of one TYPE (or FLOP subtype), WIRE.md "Unknown and unwanted
 * types":
 * - `process`: decoded and handed to the processor of its kind;
 * - `ignore`: not parsed; SKIPPED `ignored:<TYPE>` (`ignored:FLOP/<STYP>`), still backfilled;
 * - `unsupported`: not parsed; FAILED(UNSUPPORTED) under its own short budget, then
 *   DEAD(EXHAUSTED) (or SKIPPED `unsupported:<TYPE>/<STYP>` at once in `skip` mode).
 */
export const TypeDisposition = { PROCESS: "process", IGNORE: "ignore", UNSUPPORTED: "unsupported" } as const;
export type TypeDisposition = ValueOf<typeof TypeDisposition>;

/**
 * Operator settings by `TYPE` or `FLOP/<STYP>` (the one TYPE whose subtypes are set one by one).
 * Anything not named keeps its default from {@link KINDS}. A `FLOP/<STYP>` entry wins over a
 * `FLOP` entry.
 */
export type TypePolicy = Readonly<Record<string, TypeDisposition>>;

/** The body decoder a processed TYPE goes through. */
export type BodyFormat = "schd" | "flop" | "reference" | "schs";

/** The stand-in for every type of `CodecOptions.referenceTypes` in {@link KINDS}. */
export const REFERENCE_TYPES_ROW = "<reference type>";

/** One row of the kinds table (WIRE.md "Kinds"). */
export interface KindRow {
  /** META TYPE, or {@link REFERENCE_TYPES_ROW} for each configured reference type. */
  readonly type: string;
  /** The default; operators override it per TYPE (and per FLOP subtype) in a {@link TypePolicy}. */
  readonly disposition: TypeDisposition;
  /** How the body is read when the TYPE is processed; undefined: msgx has no decoder for it. */
  readonly format: BodyFormat | undefined;
  /** The message kinds the decoder yields, each taken by the processor registered for it. */
  readonly kinds: readonly MsgKindName[];
}

/**
 * The kinds table: which TYPE is processed, ignored or unsupported by default, and which
 * processors take it. The codec dispatches through it, the runner checks the processors against
 * it at start, and docs/flight-state.md prints it. A TYPE not listed is `unsupported`; FLOP
 * subtypes outside the update matrix (and not FDEL) are `unsupported` too (see {@link typeRule}).
 */
export const KINDS: readonly KindRow[] = [
  { type: "SCHD", disposition: "process", format: "schd", kinds: ["snapshot", "adft", "schdDel"] },
  { type: "FLOP", disposition: "process", format: "flop", kinds: ["flop", "fdel"] },
  { type: REFERENCE_TYPES_ROW, disposition: "process", format: "reference", kinds: ["reference"] },
  // (ours) Decoded when processed, but no seasonal store exists yet: ignored by default.
  { type: "SCHS", disposition: "ignore", format: "schs", kinds: ["seasonal"] },
  // (ours) Never observed upstream; kept ignorable.
  { type: "LDM", disposition: "ignore", format: undefined, kinds: [] },
  { type: "RSTA", disposition: "ignore", format: undefined, kinds: [] },
  { type: "EROR", disposition: "ignore", format: undefined, kinds: [] },
];

/** How one message's TYPE/STYP is treated, and which setting said so. */
export interface TypeRule {
  readonly disposition: TypeDisposition;
  /** `TYPE`, or `FLOP/<STYP>` when the subtype decided: names the `ignored:` reason. */
  readonly key: string;
  /** The kinds-table row; undefined for a TYPE msgx cannot decode. */
  readonly row: KindRow | undefined;
}

const rowOf = (type: string, referenceTypes: readonly string[]): KindRow | undefined =>
  KINDS.find((r) => r.type === type) ?? (referenceTypes.includes(type) ? KINDS.find((r) => r.type === REFERENCE_TYPES_ROW) : undefined);

/** Whether a FLOP subtype has a processor path: FDEL, or a subtype of the update matrix. */
const isFlopSubtypeKnown = (styp: string): boolean => styp === "FDEL" || flopGroup(styp) !== undefined;

/**
 * Pure: the rule for a message of `type`/`styp` under `policy`. A FLOP message is decided by its
 * `FLOP/<STYP>` setting, else by a `FLOP` setting of `ignore` or `unsupported`, else by the
 * default (process for FDEL and the matrix subtypes, unsupported for any other).
 */
export function typeRule(type: string, styp: string, policy: TypePolicy, referenceTypes: readonly string[]): TypeRule {
  const row = rowOf(type, referenceTypes);
  if (type === "FLOP") {
    const key = `FLOP/${styp}`;
    const own = settingOf(policy, key);
    if (own !== undefined) return { disposition: own, key, row };
    const whole = settingOf(policy, type);
    if (whole !== undefined && whole !== "process") return { disposition: whole, key: type, row };
    return { disposition: isFlopSubtypeKnown(styp) ? "process" : "unsupported", key, row };
  }
  return { disposition: settingOf(policy, type) ?? row?.disposition ?? "unsupported", key: type, row };
}

const settingOf = (policy: TypePolicy, key: string): TypeDisposition | undefined => (Object.hasOwn(policy, key) ? policy[key] : undefined);

const POLICY_KEY = /^(?:[A-Za-z]{3,4}|FLOP\/[A-Za-z]{1,4})$/;

/**
 * Pure: why a deployment must not start with this policy (empty when it may). Every TYPE (and
 * FLOP subtype) that ends up `process` needs a decoder and a processor for each kind it yields:
 * `SCHS=process` with no `seasonal` processor, `LDM=process`, or `FLOP/XYZ=process` for a subtype
 * outside the matrix are refused here rather than failing message by message.
 */
export function typePolicyProblems(policy: TypePolicy, referenceTypes: readonly string[], processors: ProcessorsByKind): string[] {
  const problems: string[] = [];
  for (const [key, value] of Object.entries(policy)) {
    if (!POLICY_KEY.test(key)) problems.push(`${key}: not a TYPE (3–4 letters) or FLOP/<STYP>`);
    if (!Object.values(TypeDisposition).includes(value)) problems.push(`${key}=${String(value)}: not one of process, ignore, unsupported`);
  }
  const explicit = Object.keys(policy).filter((k) => POLICY_KEY.test(k));
  const types = new Set([...KINDS.map((r) => r.type).filter((t) => t !== REFERENCE_TYPES_ROW), ...referenceTypes, ...explicit.filter((k) => !k.includes("/"))]);
  for (const type of types) {
    if (type === "FLOP") continue;
    const rule = typeRule(type, "", policy, referenceTypes);
    if (rule.disposition === "process") problems.push(...missing(`${type}=process`, rule.row, processors));
  }
  // FLOP is processed unless the whole type is switched off, or while one subtype still is.
  const whole = settingOf(policy, "FLOP");
  let flopProcessed = whole === undefined || whole === "process";
  for (const key of explicit.filter((k) => k.startsWith("FLOP/"))) {
    if (policy[key] !== "process") continue;
    flopProcessed = true;
    const styp = key.slice("FLOP/".length);
    if (!isFlopSubtypeKnown(styp)) problems.push(`${key}=process: ${styp} is not FDEL or a subtype of the FLOP update matrix`);
  }
  if (flopProcessed) problems.push(...missing("FLOP=process", rowOf("FLOP", referenceTypes), processors));
  return problems;
}

function missing(setting: string, row: KindRow | undefined, processors: ProcessorsByKind): string[] {
  if (row?.format === undefined) return [`${setting}: msgx has no decoder or processor for this type`];
  return row.kinds.filter((k) => processors[k] === undefined).map((k) => `${setting}: no processor is registered for kind ${k}`);
}

/**
 * The TYPEs a metric may name: those of the kinds table, the reference types and the ones the
 * policy names. Any other TYPE is counted as `other`, so unknown traffic cannot grow the label set.
 */
export function knownTypes(policy: TypePolicy, referenceTypes: readonly string[]): ReadonlySet<string> {
  return new Set([
    ...KINDS.map((r) => r.type).filter((t) => t !== REFERENCE_TYPES_ROW),
    ...referenceTypes,
    ...Object.keys(policy).map((k) => k.split("/")[0]!),
  ]);
}
