import { FLOP_MATRIX, type FlightRecord, type Meta } from "@msgx/core";
import { arbFlightRecord, flightRecordToXml, messageXml, schdXml } from "@msgx/core/testing";
import fc from "fast-check";

/** What one message of a generated stream is. */
export type StreamItem =
  | { readonly kind: "adft"; readonly records: readonly FlightRecord[] }
  | { readonly kind: "flop"; readonly styp: string; readonly blocks: readonly FlightRecord[] }
  | { readonly kind: "fdel"; readonly flid: string }
  | { readonly kind: "duplicate"; readonly of: number }
  | { readonly kind: "ignorable" | "unsupported" | "malformed" | "protocol" };

const FLIDS = ["900101", "900102", "900103", "900104", "900105"];
const pad2 = (n: number): string => String(n).padStart(2, "0");

/** SODT on the flight's own day; now and then on another one (an operation-day conflict). */
const arbSodt = (flid: string): fc.Arbitrary<string> =>
  fc
    .tuple(fc.integer({ min: 0, max: 9 }), fc.nat({ max: 23 }), fc.nat({ max: 59 }))
    .map(([other, h, m]) => `2026-03-${other === 0 ? "07" : Number(flid) % 2 === 0 ? "06" : "05"}T${pad2(h)}:${pad2(m)}`);

const onFlight = (r: FlightRecord, flid: string, sodt: string | undefined, ffid: string | null | undefined): FlightRecord => {
  const { SODT: _s, ...scalars } = r.scalars;
  const { ffid: _f, ...rest } = r;
  const base = { ...rest, flid, scalars: sodt === undefined ? scalars : { ...scalars, SODT: sodt } };
  return ffid === undefined ? base : { ...base, ffid };
};

/** A full SCHD record (every required field) for a pool flight, FFID usually its own. */
const arbSchdRecord = (): fc.Arbitrary<FlightRecord> =>
  fc.tuple(fc.constantFrom(...FLIDS), arbFlightRecord({ schd: true })).chain(([flid, r]) =>
    fc
      .tuple(arbSodt(flid), fc.constantFrom(undefined, `F-${flid}`, `F-${flid}`, `X-${flid}`))
      .map(([sodt, ffid]) => onFlight(r, flid, sodt, ffid)),
  );

/** A FLOP block: any content (the subtype's group picks what counts), FFID mostly absent. */
const arbBlock = (): fc.Arbitrary<FlightRecord> =>
  fc
    .tuple(fc.constantFrom(...FLIDS), arbFlightRecord(), fc.constantFrom(undefined, undefined, undefined, null))
    .map(([flid, r, ffid]) => onFlight(r, flid, undefined, ffid));

export const arbStreamItem = (): fc.Arbitrary<StreamItem> =>
  fc.oneof(
    { weight: 5, arbitrary: fc.array(arbSchdRecord(), { minLength: 1, maxLength: 2 }).map((records) => ({ kind: "adft" as const, records })) },
    {
      weight: 8,
      arbitrary: fc
        .tuple(fc.constantFrom(...Object.keys(FLOP_MATRIX)), fc.array(arbBlock(), { minLength: 1, maxLength: 2 }))
        .map(([styp, blocks]) => ({ kind: "flop" as const, styp, blocks })),
    },
    { weight: 1, arbitrary: fc.constantFrom(...FLIDS).map((flid) => ({ kind: "fdel" as const, flid })) },
    { weight: 2, arbitrary: fc.nat({ max: 1_000 }).map((of) => ({ kind: "duplicate" as const, of })) },
    { weight: 2, arbitrary: fc.constantFrom("ignorable", "unsupported", "malformed", "protocol").map((kind) => ({ kind }) as StreamItem) },
  );

/** Raw messages for a stream: sequence numbers and DTTM rise, a duplicate re-sends an earlier envelope. */
export function streamToRaws(items: readonly StreamItem[]): string[] {
  const metas: Meta[] = [];
  return items.map((item, i) => {
    const dttm = `20260305${pad2(2 + Math.floor(i / 60))}${pad2(i % 60)}00`;
    const meta = (type: string, styp: string): Meta => ({ sndr: "AODB", seqn: 1000 + i, dttm, type, styp });
    let m: Meta;
    let body: string;
    switch (item.kind) {
      case "adft":
        m = meta("SCHD", "ADFT");
        body = schdXml(item.records);
        break;
      case "flop":
        m = meta("FLOP", item.styp);
        body = item.blocks.map((b) => flightRecordToXml(b, "FLOP")).join("");
        break;
      case "fdel":
        m = meta("FLOP", "FDEL");
        body = `<FLOP><FLID>${item.flid}</FLID><FDEL/></FLOP>`;
        break;
      case "duplicate":
        m = metas.length === 0 ? meta("FLOP", "ESTT") : metas[item.of % metas.length]!;
        body = `<FLOP><FLID>${FLIDS[0]}</FLID><ESTT>05MAR261452</ESTT></FLOP>`;
        break;
      case "ignorable":
        m = meta("LDM", "NONE");
        body = "<LDM><TEXT>load</TEXT></LDM>";
        break;
      case "unsupported":
        m = meta("ZZZZ", "NONE");
        body = "<ZZZZ/>";
        break;
      case "protocol":
        m = meta("FLOP", "ESTT");
        body = "";
        break;
      case "malformed":
        metas.push(meta("FLOP", "ESTT"));
        return "<MSG><META><SNDR>AODB</SNDR></META><FLOP>";
    }
    metas.push(m);
    return messageXml(m, body);
  });
}

/** The required SCHD fields of a flight on 05MAR26 at 08:00, as wire XML. */
export const fltr = (flid: string): string =>
  `<FLTR><FLID>${flid}</FLID><ALCD>CZ</ALCD><FLNO>CZ${flid.slice(-4)}</FLNO><MVIN>D</MVIN><SODT>05MAR260800</SODT><FLTY>W</FLTY><FLIN>D</FLIN><ACFT>321</ACFT></FLTR>`;

/** A SCHD/ADFT creating (or updating) the given flights. */
export const adftXml = (seqn: number, flids: readonly string[]): string =>
  messageXml({ sndr: "AODB", seqn, dttm: "20260305010000", type: "SCHD", styp: "ADFT" }, `<SCHD><RECS>${flids.length}</RECS>${flids.map(fltr).join("")}</SCHD>`);

/** A FLOP/ESTT on one flight with a time derived from the sequence number. */
export const estt = (seqn: number, flid: string): string =>
  messageXml(
    { sndr: "AODB", seqn, dttm: "20260305020000", type: "FLOP", styp: "ESTT" },
    `<FLOP><FLID>${flid}</FLID><ESTT>05MAR26${pad2(10 + (seqn % 12))}${pad2(seqn % 60)}</ESTT></FLOP>`,
  );
