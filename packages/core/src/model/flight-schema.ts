/**
 * The flight fields msgx decodes and stores, as one table that the codec, the processors, the
 * state stores and the event payloads all read. WIRE.md "Flight record" is the source.
 *
 * Value kinds:
 * - `text`: trimmed text.
 * - `time`: body time `ddMMMyyHHmm`, stored as ISO local `yyyy-MM-ddTHH:mm`.
 * - `int`: a non-negative decimal integer, stored as canonical digits.
 * - `duration`: `HHMM`, stored as `HH:MM`.
 * - `enum`: one of the listed values.
 */
export type ValueKind = "text" | "time" | "int" | "duration" | { readonly oneOf: readonly string[] };

/**
 * Scalar fields of `FLIGHT_SCHD`. Attributes of an element are separate fields named
 * `ELEMENT@ATTR` (a diversion is `FDIV` with `FDIV@DDES`, `FDIV@DDIR`); an empty element clears
 * the element and its attributes together.
 */
export const SCALAR_FIELDS = {
  ALCD: "text",
  FLNO: "text",
  MVIN: { oneOf: ["A", "D"] },
  SODT: "time",
  FLTY: "text",
  FLIN: { oneOf: ["D", "I", "M"] },
  ALSC: "text",
  ACFT: "text",
  RENO: "text",
  MAXP: "int",
  TRML: "text",
  STND: "text",
  ESTT: "time",
  ACTT: "time",
  EOBT: "time",
  TOBT: "time",
  COBT: "time",
  CTOT: "time",
  BOTM: "time",
  FTSS: "text",
  EXSC: "text",
  EXSR: "text",
  REMC: "text",
  PAXC: "int",
  RUNW: "text",
  PHAG: "text",
  FHAG: "text",
  MHAG: "text",
  TAOP: "text",
  TAFL: "text",
  TAID: "text",
  CSOP: "text",
  CSFT: "text",
  MAID: "text",
  CNCL: "time",
  FDIV: "text",
  "FDIV@DDES": "text",
  "FDIV@DDIR": "text",
  FRET: "text",
  "FRET@REID": "text",
  FLAB: "text",
  "FLAB@ARES": "text",
} as const satisfies Record<string, ValueKind>;

export type ScalarName = keyof typeof SCALAR_FIELDS;
export const SCALAR_NAMES = Object.keys(SCALAR_FIELDS) as ScalarName[];

/** Elements that carry attributes stored as `ELEMENT@ATTR` scalars. */
export const SCALAR_ATTRIBUTES: Readonly<Record<string, readonly string[]>> = {
  FDIV: ["DDES", "DDIR"],
  FRET: ["REID"],
  FLAB: ["ARES"],
};

/** Required in every SCHD flight record (WIRE.md); a snapshot missing one is PROTOCOL. */
export const REQUIRED_SCHD_FIELDS: readonly ScalarName[] = ["ALCD", "FLNO", "MVIN", "SODT", "FLTY", "FLIN"];

/**
 * One resource collection: one table keyed by (FLID, key). `key` names the sequence attribute of
 * each row element; `position` keys rows by their order (1-based) instead. `fields` are child
 * elements; `attributes` are stored as `@NAME`; `text` stores the element's own text as `#text`.
 */
export interface CollectionSpec {
  readonly key: string | { readonly position: true };
  readonly fields: Readonly<Record<string, ValueKind>>;
  readonly attributes?: Readonly<Record<string, ValueKind>>;
  readonly text?: ValueKind;
}

export const COLLECTIONS = {
  ROUT: { key: "RTNO", fields: { APCD: "text", SCAT: "time", SCDT: "time" } },
  ERUT: { key: "RTNO", fields: { APCD: "text", SCAT: "time", SCDT: "time", SADC: "time", SDDC: "time" } },
  PSDT: { key: "PSNO", fields: { PSST: "text", STST: "time", STET: "time" } },
  GTDT: { key: "GTNO", fields: { GATE: "text", PGOT: "time", PGCT: "time", GOTM: "time", GCTM: "time", GTYP: "text" } },
  CKDT: {
    key: "CKNO",
    fields: { CHKC: "text", CCLS: "text", PCOT: "time", PCCT: "time", COTM: "time", CCTM: "time", CTYP: "text" },
  },
  CLDT: {
    key: "CLNO",
    fields: { BELT: "text", BCLS: "text", PCOT: "time", PCCT: "time", FBAG: "time", LBAG: "time", BTYP: "text" },
  },
  CHDT: {
    key: "CHNO",
    fields: { CHUT: "text", CCLS: "text", PCBT: "time", PCET: "time", CBTM: "time", CETM: "time", CTYP: "text" },
  },
  DELY: {
    key: { position: true },
    fields: {},
    attributes: { CODE: "text", STRT: "time", DURA: "duration" },
    text: "text",
  },
  // (ours) WIRE.md names the content of a chocks row but not its elements.
  CHOT: { key: "CSNO", fields: { CHST: "text", ONBT: "time", OFBT: "time" } },
} as const satisfies Record<string, CollectionSpec>;

export type CollectionName = keyof typeof COLLECTIONS;
export const COLLECTION_NAMES = Object.keys(COLLECTIONS) as CollectionName[];
