import * as fc from "fast-check";
import type { Arbitrary } from "fast-check";
import type { CollectionRow, FlightRecord, WireValue } from "../../src/model/flight-record.js";
import type { FlopBlock, StandRowElement, StandRowStatement } from "../../src/model/flop-block.js";
import { arbIsoLocalTime, encodeBodyTime, escapeXml, flightRecordToXml } from "../../src/testing/sis-xml.arbitraries.js";
import type { XmlStyle } from "../../src/testing/sis-xml.arbitraries.js";

/** Stands the generated stand plans and stand-row elements share, so they meet now and then. */
const STANDS = ["210", "305"] as const;

const arbMaybe = <T>(arb: Arbitrary<T>): Arbitrary<T | null | undefined> =>
  fc.oneof({ weight: 4, arbitrary: arb }, { weight: 1, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.constant(undefined) });

const defined = (values: Record<string, WireValue | undefined>): Record<string, WireValue> =>
  Object.fromEntries(Object.entries(values).filter((e): e is [string, WireValue] => e[1] !== undefined));

const arbStandRow = (element: StandRowElement): Arbitrary<StandRowStatement> => {
  const stand = fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...STANDS, "999") }, { weight: 1, arbitrary: fc.constantFrom(null, undefined) });
  const time = arbMaybe(arbIsoLocalTime());
  return element === "PSHT"
    ? fc.tuple(stand, time, arbMaybe(fc.constantFrom("Y", "N"))).map(([PUST, PSTM, PSID]) => ({ values: defined({ "@PSHN": "1", PUST, PSTM, PSID }) }))
    : fc.tuple(stand, time).map(([TRST, TRTM]) => ({ values: defined({ TRST, TRTM }) }));
};

/** An attribute that decides whether its element is set: mostly a valid value, else whatever was drawn. */
const arbDomain = (values: readonly string[], drawn: WireValue | undefined): Arbitrary<WireValue | undefined> =>
  drawn === undefined ? fc.constant(undefined) : fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...values) }, { weight: 1, arbitrary: fc.constant(drawn) });

/**
 * A random FLOP block of subtype `styp`, nudged so that its group's rule passes more often than
 * chance would have it: valid FDIV/FRET/FLAB attributes, PSDT rows on the shared stands, and
 * PSHT/TIPT rows for those stands.
 */
export function arbFlopBlockFor(styp: string, record: FlightRecord): Arbitrary<FlopBlock> {
  const s: Record<string, WireValue | undefined> = record.scalars;
  const attribute = (name: string, values: readonly string[]) =>
    arbDomain(values, s[name]).map((v): FlopBlock => (v === undefined ? record : { ...record, scalars: { ...record.scalars, [name]: v } }));
  switch (styp) {
    case "FDIV":
      return attribute("FDIV@DDIR", ["TO", "FROM"]);
    case "FRET":
      return attribute("FRET@REID", ["A", "G"]);
    case "FLAB":
      return attribute("FLAB@ARES", ["O", "G"]);
    case "PSDT": {
      const rows = record.collections.PSDT ?? [];
      return fc.tuple(...rows.map(() => fc.constantFrom(...STANDS))).map((stands) => ({
        ...record,
        collections: { ...record.collections, PSDT: rows.map((r, i): CollectionRow => ({ key: r.key, values: { ...r.values, PSST: stands[i] ?? null } })) },
      }));
    }
    case "PSHT":
    case "TIPT":
      return fc
        .oneof({ weight: 6, arbitrary: fc.array(arbStandRow(styp), { minLength: 1, maxLength: 2 }) }, { weight: 1, arbitrary: fc.constant([]) })
        .map((rows) => (rows.length === 0 ? record : { ...record, standRows: { [styp]: rows } }));
    default:
      return fc.constant(record);
  }
}

const leaf = (name: string, value: WireValue, time: boolean): string =>
  value === null ? `<${name}/>` : `<${name}>${escapeXml(time ? encodeBodyTime(value) : value)}</${name}>`;

/** A FLOP block as SIS XML: its record, then its PSHT/TIPT elements. */
export function flopBlockToXml(block: FlopBlock, style: XmlStyle = {}): string {
  const extra = Object.entries(block.standRows ?? {}).flatMap(([element, rows]) =>
    (rows ?? []).map(({ values }) => {
      const pshn = values["@PSHN"];
      const attrs = typeof pshn === "string" ? ` PSHN="${escapeXml(pshn)}"` : "";
      const children = Object.entries(values)
        .filter(([k]) => !k.startsWith("@"))
        .map(([k, v]) => leaf(k, v, k === "PSTM" || k === "TRTM"))
        .join("");
      return `<${element}${attrs}>${children}</${element}>`;
    }),
  );
  const { standRows: _rows, ...record } = block;
  return flightRecordToXml(record, "FLOP", style).replace(/<\/FLOP>$/, `${extra.join("")}</FLOP>`);
}
