/**
 * How one field of a reference record is read (WIRE.md "Reference data"):
 * - `text`: a scalar, trimmed; an empty element is `null`.
 * - `flag`: a Y/N flag, `true` only for `Y` (any case), `false` for any other text, `null` when empty.
 * - `list`: a repeated simple child (`*`), the trimmed texts in wire order, empty repeats dropped.
 * - `terminals`: AIRL `TRML*`, rows `{ terminal, mvin, flin }` (text, `@MVIN`, `@FLIN`); an empty
 *   text or attribute is `null` ("no value"), a repeat with nothing in it is dropped.
 * - `rows`: a repeated structured child (AIRL `SUBC*{CODE, NAME, NAMC}`), rows of its children by
 *   element name (trimmed text, `null` when empty); a repeat with nothing in it is dropped.
 * - `abbreviations`: ARPT/CITY `ABBR*` with `@CODE` (ABR1–ABR6), one object `{ ABR1: "…" }` by
 *   code; an empty repeat is dropped, a repeat without a code or a code given twice is PROTOCOL.
 */
export type RefFieldKind = "text" | "flag" | "list" | "terminals" | "rows" | "abbreviations";

/** One row of a structured repeat, or the abbreviations by code: element/attribute name → text. */
export type RefRow = { readonly [name: string]: string | null };

/** The decoded value of one field; which shape follows from its {@link RefFieldKind}. */
export type RefValue = string | boolean | null | readonly string[] | readonly RefRow[] | RefRow;

/**
 * A reference record's fields by upstream element name, in the schema's order, then any element
 * the schema does not name in wire order. The key element is not among them (it is the record's
 * key). An absent name was not sent.
 */
export type RefFields = { readonly [name: string]: RefValue };

/** One reference type: what it is, its key element and its fields. */
export interface RefTypeSchema {
  readonly type: string;
  readonly what: string;
  /** The element that keys a record (kept as sent, trimmed). */
  readonly key: string;
  readonly fields: Readonly<Record<string, RefFieldKind>>;
}

const texts = (...names: string[]): Record<string, RefFieldKind> => Object.fromEntries(names.map((n) => [n, "text" as const]));

/** The 23 reference types upstream sends (WIRE.md "Reference data"), in the order of its table. */
const SCHEMAS: readonly RefTypeSchema[] = [
  { type: "AIRL", what: "airline", key: "ITOP", fields: { ...texts("ICOP", "ONAM", "ONMC", "CTRY", "DORI"), TRML: "terminals", OGRP: "list", SUBC: "rows" } },
  { type: "AIRC", what: "aircraft type", key: "ITAT", fields: texts("ICAT", "DESC", "CDSC", "CHAP", "MAXP", "MFWT", "MTWT", "ALEN", "WSPN", "MHTM", "MABR") },
  { type: "ARPT", what: "airport", key: "ITCD", fields: { ...texts("ICCD", "ANAM", "ANMC", "BDIS", "CTRY", "ACTY", "ATYP", "HAUL"), ABBR: "abbreviations" } },
  { type: "CITY", what: "city", key: "ITCD", fields: { ...texts("ICCD", "CNAM", "CNMC", "CTRY"), ABBR: "abbreviations" } },
  { type: "COUL", what: "country", key: "COUC", fields: { ...texts("COUN", "CNMC"), REGC: "list" } },
  { type: "REGL", what: "region", key: "REGC", fields: texts("REGN", "RGNC") },
  { type: "REGN", what: "aircraft registration", key: "RNUM", fields: texts("ITAT", "OWID", "ACAL", "ALSC", "MAXP", "MFWT", "MTWT") },
  { type: "ABDG", what: "airbridge", key: "ABCD", fields: { ...texts("DESC", "CDSC", "AHGT", "ATML"), ATHE: "flag", AMNO: "text", STND: "list", GATE: "list" } },
  { type: "ABNR", what: "abnormal reason", key: "ANRC", fields: texts("ANRD", "ARDC") },
  { type: "BLST", what: "reclaim belt", key: "BCOD", fields: texts("BTNM", "BNMC", "BCAT", "BTML") },
  { type: "CHLT", what: "make-up chute", key: "CCOD", fields: texts("CHNM", "CNMC", "CTML", "CCAT") },
  { type: "CLST", what: "check-in desk", key: "CCOD", fields: { ...texts("CTNM", "CNMC", "CCAT", "CTML"), CTRA: "flag" } },
  { type: "GLST", what: "gate", key: "GCOD", fields: texts("GTNM", "GNMC", "GCAT", "GTML", "PIER") },
  { type: "PLST", what: "pier", key: "PCOD", fields: texts("PRNM", "PNMC", "PCAT", "PTML") },
  {
    type: "SLST",
    what: "stand",
    key: "SCOD",
    fields: { ...texts("STNM", "SNMC", "SATC", "STGP", "SWID", "SHGT", "STML", "MABS", "DIGT", "DDGT", "REMT"), FEPU: "flag" },
  },
  { type: "TLST", what: "terminal", key: "TCOD", fields: { ...texts("TNAM", "TNMC", "TCAT"), TPAX: "flag" } },
  { type: "DLYL", what: "delay code", key: "DCOD", fields: texts("DCDN", "DDES", "DDSC") },
  { type: "FLTL", what: "flight type", key: "FTYP", fields: { ...texts("CTYP", "FDES", "FDSC"), FCML: "flag" } },
  { type: "HLTR", what: "handling/service transaction type", key: "HLTC", fields: texts("HLTD", "HTDC", "HLTT", "UMNM") },
  // OGID is an integer upstream; kept as the text sent, like every key.
  { type: "ORGN", what: "organisation", key: "OGID", fields: { ...texts("ONAM", "ONMC"), OCAT: "list" } },
  { type: "STTS", what: "flight status code", key: "STTC", fields: { ...texts("STTD", "STDC"), ABNS: "flag" } },
  {
    type: "VIPL",
    what: "VIP person",
    key: "VPCD",
    fields: texts("VPNC", "VFNM", "VLNM", "VDES", "VDSC", "VPON", "VRNK", "VPTC", "VCTN", "VCMN", "VRMK", "VPWU", "VPPS"),
  },
  { type: "VIPS", what: "VIP service type", key: "VSCD", fields: texts("VSDS", "VSDC", "VSQC", "VSUC") },
];

/** The reference types by TYPE. */
export const REFERENCE_SCHEMAS: ReadonlyMap<string, RefTypeSchema> = new Map(SCHEMAS.map((s) => [s.type, s]));

/** The 23 reference type names: the codec's default `referenceTypes`. */
export const REFERENCE_TYPES: readonly string[] = SCHEMAS.map((s) => s.type);
