import type { CollectionName, ScalarName } from "../model/flight-schema.js";

/** The elements one FLOP subtype may set on a flight. */
export interface FlopGroup {
  readonly scalars: readonly ScalarName[];
  readonly collections: readonly CollectionName[];
}

const scalars = (...names: ScalarName[]): FlopGroup => ({ scalars: names, collections: [] });
const collection = (name: CollectionName): FlopGroup => ({ scalars: [], collections: [name] });

/**
 * The FLOP update matrix (WIRE.md "FLOP subtypes"): subtype → the elements it may set. Elements
 * of a FLOP block outside its subtype's group are ignored, so an ESTT message can never move a
 * gate by accident. A collection in the group replaces the whole set; `[]` clears it. An element
 * with attributes carries them along (`FDIV` sets `FDIV@DDES`/`FDIV@DDIR`). FDEL is not here: it
 * is its own kind (`fdel`). A subtype missing from the table is FAILED(UNSUPPORTED), replayable
 * once the table grows.
 */
export const FLOP_MATRIX: Readonly<Record<string, FlopGroup>> = {
  ESTT: scalars("ESTT"),
  ACTT: scalars("ACTT"),
  STND: scalars("STND"),
  FTSS: scalars("FTSS"),
  CNCL: scalars("CNCL"),
  FDIV: scalars("FDIV", "FDIV@DDES", "FDIV@DDIR"),
  FRET: scalars("FRET", "FRET@REID"),
  FLAB: scalars("FLAB", "FLAB@ARES"),
  RENO: scalars("RENO"),
  ACFT: scalars("ACFT"),
  TRML: scalars("TRML"),
  EOBT: scalars("EOBT"),
  TOBT: scalars("TOBT"),
  CTOT: scalars("CTOT"),
  REMC: scalars("REMC"),
  EXSS: scalars("EXSC", "EXSR"),
  HNAG: scalars("PHAG", "FHAG", "MHAG"),
  RUNW: scalars("RUNW"),
  PAXC: scalars("PAXC"),
  PSDT: collection("PSDT"),
  GTDT: collection("GTDT"),
  CKDT: collection("CKDT"),
  CLDT: collection("CLDT"),
  CHDT: collection("CHDT"),
  DELY: collection("DELY"),
  ROUT: collection("ROUT"),
  ERUT: collection("ERUT"),
  CHOT: collection("CHOT"),
};

/** The group of a FLOP subtype, or undefined when the subtype is outside the matrix. */
export function flopGroup(styp: string): FlopGroup | undefined {
  return Object.hasOwn(FLOP_MATRIX, styp) ? FLOP_MATRIX[styp] : undefined;
}
