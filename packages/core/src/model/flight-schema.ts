/**
 * The flight fields msgx decodes and stores, as one table that the codec, the processors, the
 * state stores and the event payloads all read. WIRE.md "Flight record" is the source.
 *
 * Value kinds:
 * - `text`: trimmed text.
 * - `{ maxChars }`: trimmed text of at most that many characters (Unicode code points), where
 *   WIRE.md gives the field a width (REMC ≤ 80); a longer value is PROTOCOL, never truncated.
 *   Counting characters, not bytes, never refuses a remark the upstream column holds.
 * - `time`: body time `ddMMMyyHHmm` (month in any case), stored as ISO local `yyyy-MM-ddTHH:mm`.
 * - `int`: a non-negative decimal integer, stored as canonical digits.
 * - `duration`: `HHMM`, stored as `HH:MM`.
 * - `dayOffset`: a signed day count `+n` / `-n` (an unsigned `n` reads as `+n`), stored with its
 *   sign and no leading zeros (`+0`, `+1`, `-2`).
 * - `oneOf`: one of the listed values, exactly.
 */
export type ValueKind =
  | "text"
  | "time"
  | "int"
  | "duration"
  | "dayOffset"
  | { readonly oneOf: readonly string[] }
  | { readonly maxChars: number };

/**
 * Scalar fields of `FLIGHT_SCHD`. Attributes of an element are separate fields named
 * `ELEMENT@ATTR` (a diversion is `FDIV` with `FDIV@DDES`, `FDIV@DDIR`); an empty element clears
 * the element and its attributes together. `PORT@O` / `PORT@C` are the door open / close times
 * that `PORT{POTM, POID}` elements set (see {@link INDEXED_SCALARS}).
 */
export const SCALAR_FIELDS = {
  ALCD: "text",
  FLNO: "text",
  MVIN: { oneOf: ["A", "D"] },
  SODT: "time",
  FLTY: "text",
  FLIN: { oneOf: ["D", "I", "M", "R"] },
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
  IEST: "time",
  APPT: "time",
  BOTM: "time",
  LACL: "time",
  FINT: "time",
  EGSR: "time",
  EGST: "time",
  PEDT: "time",
  PADT: "time",
  NEAT: "time",
  NAAT: "time",
  "PORT@O": "time",
  "PORT@C": "time",
  FTSS: "text",
  EXSC: "text",
  EXSR: "text",
  REMC: { maxChars: 80 },
  PAXC: "int",
  RUNW: "text",
  VIPP: "int",
  VIPR: "text",
  LBNO: "text",
  LBWT: "text",
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

/**
 * An element that sets one of several scalars, chosen by an indicator child: `value` is the child
 * holding the value, `indicator` the child naming the scalar (`fields` maps its values to them).
 */
export interface IndexedScalarSpec {
  readonly indicator: string;
  readonly value: string;
  readonly fields: Readonly<Record<string, ScalarName>>;
}

/** `PORT{POTM, POID O|C}`: POTM is the door open (`PORT@O`) or close (`PORT@C`) time. */
export const INDEXED_SCALARS = {
  PORT: { indicator: "POID", value: "POTM", fields: { O: "PORT@O", C: "PORT@C" } },
} as const satisfies Record<string, IndexedScalarSpec>;

export type IndexedScalarName = keyof typeof INDEXED_SCALARS;

/** Required in every SCHD flight record (WIRE.md); a snapshot missing one is PROTOCOL. */
export const REQUIRED_SCHD_FIELDS: readonly ScalarName[] = ["ALCD", "FLNO", "MVIN", "SODT", "FLTY", "FLIN", "ACFT"];

/**
 * How a FLOP states a collection (WIRE.md "Twelve resource collections"): `replace` — its rows are
 * the whole set; `merge` — new keys are added, known keys updated, others kept. In both, one empty
 * element clears the set.
 */
export type FlopCollectionRule = "replace" | "merge";

/**
 * One resource collection: one table keyed by (FLID, key).
 * - `key`: a string names the row element's key attribute (`RTNO`); `{ element }` names a child
 *   element whose text is the key (`SRTC`), which also stays a field of the row.
 * - `fields` are child elements; `attributes` are stored as `@NAME` (a key attribute listed there
 *   too is kept in the row as well); `text` stores the element's own text as `#text`.
 * - `flop`: the rule a FLOP applies to the collection.
 * - `parent`: the row elements sit inside the rows of another collection, not in the flight
 *   record (VIPT inside VIPF). The row key is `<parent key>/<own key>`, the parent's key is stored
 *   under the parent's key element name, and a parent row stated with its children replaces that
 *   parent row's rows (whatever `flop` says of the parent).
 */
export interface CollectionSpec {
  readonly key: string | { readonly element: string };
  readonly fields: Readonly<Record<string, ValueKind>>;
  readonly attributes?: Readonly<Record<string, ValueKind>>;
  readonly text?: ValueKind;
  readonly flop: FlopCollectionRule;
  readonly parent?: string;
}

export const COLLECTIONS = {
  ROUT: { key: "RTNO", fields: { APCD: "text", SCAT: "time", SCDT: "time" }, flop: "replace" },
  ERUT: {
    key: "RTNO",
    fields: { APCD: "text", SCAT: "time", SCDT: "time", SADC: "dayOffset", SDDC: "dayOffset" },
    flop: "merge",
  },
  PSDT: {
    key: "PSNO",
    fields: { PSST: "text", STST: "time", STET: "time", PSTM: "time", PSID: "text", TRTM: "time" },
    flop: "replace",
  },
  GTDT: {
    key: "GTNO",
    fields: { GATE: "text", PGOT: "time", PGCT: "time", GOTM: "time", GCTM: "time", GTYP: "text" },
    flop: "replace",
  },
  CKDT: {
    key: "CKNO",
    fields: { CHKC: "text", CCLS: "text", PCOT: "time", PCCT: "time", COTM: "time", CCTM: "time", CTYP: "text" },
    flop: "replace",
  },
  CLDT: {
    key: "CLNO",
    fields: { BELT: "text", BCLS: "text", PCOT: "time", PCCT: "time", FBAG: "time", LBAG: "time", BTYP: "text" },
    flop: "replace",
  },
  CHDT: {
    key: "CHNO",
    fields: { CHUT: "text", CCLS: "text", PCBT: "time", PCET: "time", CBTM: "time", CETM: "time", CTYP: "text" },
    flop: "replace",
  },
  CHOT: { key: "CSNO", fields: { CHTM: "time", CHID: { oneOf: ["ON", "OFF"] }, CHST: "text" }, flop: "replace" },
  ABTM: { key: "ASNO", fields: { ABDG: "text", ABOP: "text", AOTM: "time" }, flop: "replace" },
  DELY: {
    key: "CODE",
    fields: {},
    attributes: { CODE: "text", STRT: "time", DURA: "duration" },
    text: "text",
    flop: "merge",
  },
  SRVT: {
    key: { element: "SRTC" },
    fields: { SRTC: "text", SRQT: "int", SRST: "time", SRET: "time", SRPR: "text", SANR: "text", SARR: "text" },
    flop: "merge",
  },
  VIPF: { key: { element: "VPCD" }, fields: { VPCD: "text", VFES: "int" }, flop: "merge" },
  VIPT: {
    key: { element: "VSCD" },
    fields: { VPCD: "text", VSCD: "text", VTQY: "int", VTST: "time", VTET: "time" },
    flop: "merge",
    parent: "VIPF",
  },
} as const satisfies Record<string, CollectionSpec>;

export type CollectionName = keyof typeof COLLECTIONS;
export const COLLECTION_NAMES = Object.keys(COLLECTIONS) as CollectionName[];

/** The spec of a collection, typed as the interface (the table's literal types are narrower). */
export const collectionSpec = (name: CollectionName): CollectionSpec => COLLECTIONS[name];

/** Collections whose rows sit in the flight record itself (all but nested ones such as VIPT). */
export const TOP_COLLECTION_NAMES = COLLECTION_NAMES.filter((n) => collectionSpec(n).parent === undefined);

/** Collections whose rows sit inside the rows of `parent`. */
export const childCollectionsOf = (parent: CollectionName): CollectionName[] =>
  COLLECTION_NAMES.filter((n) => collectionSpec(n).parent === parent);
