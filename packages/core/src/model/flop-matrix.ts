import { childCollectionsOf, collectionSpec } from "./flight-schema.js";
import type { CollectionName, ScalarName } from "./flight-schema.js";

/**
 * The groups of WIRE.md "FLOP subtypes". Each has one absent/empty rule, applied by
 * `readFlopChange` (flop-change.ts); "absent" is the governed element missing from the block:
 *
 * | group | absent | empty |
 * |---|---|---|
 * | `time` | clears | clears |
 * | `plain` | PROTOCOL | clears; PROTOCOL when `required` |
 * | `exss` | EXSC absent: PROTOCOL | empty EXSC clears EXSC and EXSR |
 * | `perField` | each cleared independently | each cleared |
 * | `taop` | all absent: all cleared | any one empty clears all |
 * | `port` | no door stated (POID absent): PROTOCOL | POTM empty/absent clears that door's time |
 * | `fdiv` | clears | empty or `DDES=""` clears; DDES with DDIR not TO/FROM: PROTOCOL |
 * | `fret` | clears | empty clears; REID not A/G: PROTOCOL |
 * | `flab` | clears | empty or `ARES=""` clears; ARES missing or not O/G: PROTOCOL |
 * | `replace` | PROTOCOL | one empty element clears the set; the rows are the whole set |
 * | `merge` | PROTOCOL | one empty element clears the set; rows added or updated by key |
 * | `standRow` | PROTOCOL | missing time clears the element's fields on the stand's PSDT rows |
 * | `delete` | — | FDEL, its own kind (`fdel`) |
 */
export type FlopGroupName =
  | "time"
  | "plain"
  | "exss"
  | "perField"
  | "taop"
  | "port"
  | "fdiv"
  | "fret"
  | "flab"
  | "replace"
  | "merge"
  | "standRow"
  | "delete";

/** What one FLOP subtype may set on a flight, and by which rule. */
export interface FlopGroup {
  readonly group: FlopGroupName;
  readonly scalars: readonly ScalarName[];
  /** The collection the subtype states first, then the collections nested in its rows (VIPT in VIPF). */
  readonly collections: readonly CollectionName[];
  /** `plain` only: a field required in every SCHD record, which a FLOP may set but never clear. */
  readonly required?: true;
}

const time = (name: ScalarName): FlopGroup => ({ group: "time", scalars: [name], collections: [] });
const plain = (name: ScalarName): FlopGroup => ({ group: "plain", scalars: [name], collections: [] });
const required = (name: ScalarName): FlopGroup => ({ group: "plain", scalars: [name], collections: [], required: true });
const fields = (group: FlopGroupName, ...names: ScalarName[]): FlopGroup => ({ group, scalars: names, collections: [] });
/** A collection subtype: replace or merge as the collection's spec says (`CollectionSpec.flop`). */
const collection = (name: CollectionName): FlopGroup => ({
  group: collectionSpec(name).flop,
  scalars: [],
  collections: [name, ...childCollectionsOf(name)],
});
const standRow: FlopGroup = { group: "standRow", scalars: [], collections: ["PSDT"] };

/**
 * The FLOP update matrix (WIRE.md "FLOP subtypes"): subtype → its group and the elements it may
 * set. Elements of a block outside its subtype's group are ignored, so an ESTT message can never
 * move a gate by accident. `flopGroup` is the one answer to "is this subtype in the matrix"; a
 * subtype outside it is the type policy's business (WIRE.md "Unknown and unwanted types").
 */
export const FLOP_MATRIX: Readonly<Record<string, FlopGroup>> = {
  APPT: time("APPT"),
  BOTM: time("BOTM"),
  CNCL: time("CNCL"),
  COBT: time("COBT"),
  CTOT: time("CTOT"),
  EGSR: time("EGSR"),
  EGST: time("EGST"),
  EOBT: time("EOBT"),
  FINT: time("FINT"),
  IEST: time("IEST"),
  LACL: time("LACL"),
  NAAT: time("NAAT"),
  NEAT: time("NEAT"),
  PADT: time("PADT"),
  PEDT: time("PEDT"),
  TOBT: time("TOBT"),
  // (ours) no upstream handler: ESTT and ACTT come in SCHD records upstream.
  ESTT: time("ESTT"),
  ACTT: time("ACTT"),

  ACFT: required("ACFT"),
  FLIN: required("FLIN"),
  FLTY: required("FLTY"),
  FTSS: plain("FTSS"),
  MAXP: plain("MAXP"),
  REMC: plain("REMC"),
  RENO: plain("RENO"),
  RUNW: plain("RUNW"),
  STND: plain("STND"),
  TRML: plain("TRML"),
  // (ours) no upstream handler.
  PAXC: plain("PAXC"),

  EXSS: fields("exss", "EXSC", "EXSR"),
  HNAG: fields("perField", "PHAG", "FHAG", "MHAG"),
  VIPP: fields("perField", "VIPP", "VIPR"),
  TAOP: fields("taop", "TAOP", "TAFL", "TAID"),
  PORT: fields("port", "PORT@O", "PORT@C"),
  FDIV: fields("fdiv", "FDIV", "FDIV@DDES", "FDIV@DDIR"),
  FRET: fields("fret", "FRET", "FRET@REID"),
  FLAB: fields("flab", "FLAB", "FLAB@ARES"),

  PSDT: collection("PSDT"),
  GTDT: collection("GTDT"),
  CKDT: collection("CKDT"),
  CLDT: collection("CLDT"),
  CHDT: collection("CHDT"),
  CHOT: collection("CHOT"),
  ABTM: collection("ABTM"),
  // (ours) upstream stores no ROUT.
  ROUT: collection("ROUT"),
  ERUT: collection("ERUT"),
  DELY: collection("DELY"),
  SRVT: collection("SRVT"),
  VIPF: collection("VIPF"),

  PSHT: standRow,
  TIPT: standRow,

  FDEL: { group: "delete", scalars: [], collections: [] },
};

/** The group of a FLOP subtype, or undefined when the subtype is outside the matrix. */
export function flopGroup(styp: string): FlopGroup | undefined {
  return Object.hasOwn(FLOP_MATRIX, styp) ? FLOP_MATRIX[styp] : undefined;
}
