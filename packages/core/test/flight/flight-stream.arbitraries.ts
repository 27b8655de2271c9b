import * as fc from "fast-check";
import type { Arbitrary } from "fast-check";
import { FLOP_MATRIX } from "../../src/model/flop-matrix.js";
import type { FlightRecord, WireValue } from "../../src/model/flight-record.js";
import { REQUIRED_SCHD_FIELDS } from "../../src/model/flight-schema.js";
import type { FlopBlock } from "../../src/model/flop-block.js";
import { arbFlightRecord, arbXmlStyle, escapeXml, messageXml, schdXml } from "../../src/testing/sis-xml.arbitraries.js";
import type { XmlStyle } from "../../src/testing/sis-xml.arbitraries.js";
import type { ModelMessage } from "./flight-model.js";
import { arbFlopBlockFor, flopBlockToXml } from "./flop-stream.arbitraries.js";

/** A small FLID pool, so messages keep meeting the same flights. */
const FLIDS = ["1", "2", "3", "4", "5"] as const;
const arbFlid = fc.constantFrom(...FLIDS);
const pad2 = (n: number): string => String(n).padStart(2, "0");

/** SODT on the flight's own day, now and then on another one (an operation-day conflict). */
const arbSodt = (flid: string): Arbitrary<string> =>
  fc
    .tuple(fc.integer({ min: 0, max: 9 }), fc.nat({ max: 23 }), fc.nat({ max: 59 }))
    .map(([other, h, m]) => `2026-03-${other === 0 ? "07" : Number(flid) % 2 === 0 ? "06" : "05"}T${pad2(h)}:${pad2(m)}`);

/** FFID mostly absent, sometimes empty, usually the flight's own, rarely another (FLID reuse). */
const arbFfid = (flid: string): Arbitrary<WireValue | undefined> =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constant(null) },
    { weight: 3, arbitrary: fc.constant(`F-${flid}`) },
    { weight: 1, arbitrary: fc.constant(`X-${flid}`) },
  );

function withIdentity(r: FlightRecord, flid: string, ffid: WireValue | undefined, sodt: string | null | undefined): FlightRecord {
  const { SODT: _drop, ...rest } = r.scalars;
  const scalars = sodt === undefined ? rest : { ...rest, SODT: sodt };
  const { ffid: _ffid, ...base } = r;
  return ffid === undefined ? { ...base, flid, scalars } : { ...base, flid, ffid, scalars };
}

/** A full SCHD record for a pool flight. */
const arbSchdRecord: Arbitrary<FlightRecord> = fc
  .tuple(arbFlid, arbFlightRecord({ schd: true }))
  .chain(([flid, r]) => fc.tuple(arbFfid(flid), arbSodt(flid)).map(([ffid, sodt]) => withIdentity(r, flid, ffid, sodt)));

/** Leaves out the required fields a partial record would clear, except now and then (a PROTOCOL fault). */
function sparingRequired(r: FlightRecord, keepClears: boolean): FlightRecord {
  if (keepClears) return r;
  const scalars = Object.fromEntries(
    Object.entries(r.scalars).filter(([name, v]) => !(v === null && (REQUIRED_SCHD_FIELDS as readonly string[]).includes(name))),
  );
  return { ...r, scalars };
}

/**
 * An ADFT record: mostly a full one (every SCHD record is the flight's full state), now and then a
 * partial one, which lacks required fields (a PROTOCOL fault).
 */
const arbAdftRecord: Arbitrary<FlightRecord> = fc.oneof(
  { weight: 9, arbitrary: arbSchdRecord },
  { weight: 1, arbitrary: fc
    .tuple(arbFlid, arbFlightRecord(), fc.integer({ min: 0, max: 19 }))
    .chain(([flid, r, clears]) =>
      fc
        .tuple(arbFfid(flid), fc.option(arbSodt(flid), { nil: undefined }))
        .map(([ffid, sodt]) => sparingRequired(withIdentity(r, flid, ffid, sodt), clears === 0)),
    ) },
);

/** A FLOP block of subtype `styp` for a pool flight (or an unknown FLID now and then). */
const arbFlopBlock = (styp: string): Arbitrary<FlopBlock> =>
  fc
    .tuple(fc.oneof({ weight: 9, arbitrary: arbFlid }, { weight: 1, arbitrary: fc.constant("77") }), arbFlightRecord())
    .chain(([flid, r]) => arbFfid(flid).chain((ffid) => arbFlopBlockFor(styp, withIdentity(r, flid, ffid, r.scalars.SODT))));

/** FLOP subtypes of the matrix but FDEL (a kind of its own), and now and then one outside it. */
const FLOP_SUBTYPES = Object.keys(FLOP_MATRIX).filter((s) => s !== "FDEL");

/** Records with distinct FLIDs, now and then with the first repeated (a PROTOCOL fault). */
const arbPackage = (record: Arbitrary<FlightRecord>, minLength: number): Arbitrary<FlightRecord[]> =>
  fc
    .tuple(fc.uniqueArray(record, { selector: (r) => r.flid, minLength, maxLength: 3 }), fc.integer({ min: 0, max: 14 }))
    .map(([rs, dup]) => (dup === 0 && rs[0] !== undefined ? [...rs, rs[0]] : rs));

/** RECS as counted, now and then off by one (a PROTOCOL fault). */
const recsOf = (n: number, off: number): number => (off === 0 ? n + 1 : off === 1 && n > 0 ? n - 1 : n);

type Undated<M> = M extends unknown ? Omit<M, "dttm"> : never;

const arbUndated: Arbitrary<Undated<ModelMessage>> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.tuple(arbPackage(arbSchdRecord, 0), fc.integer({ min: 0, max: 14 })).map(([records, off]) => ({
      kind: "schd" as const, styp: "DNLD" as const, recs: recsOf(records.length, off), records,
    })),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(arbPackage(arbAdftRecord, 1), fc.integer({ min: 0, max: 14 }), fc.constantFrom("ADFT" as const, "ADFT" as const, "ADD" as const, "UPD" as const))
      .map(([records, off, styp]) => ({ kind: "schd" as const, styp, recs: recsOf(records.length, off), records })),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.uniqueArray(fc.oneof({ weight: 5, arbitrary: arbFlid }, { weight: 1, arbitrary: fc.constant("77") }), { minLength: 0, maxLength: 3 }), fc.integer({ min: 0, max: 14 }))
      .map(([flids, off]) => {
        const all = off === 2 && flids[0] !== undefined ? [...flids, flids[0]] : flids;
        return { kind: "schdDel" as const, recs: recsOf(all.length, off), flids: all };
      }),
  },
  {
    weight: 5,
    arbitrary: fc
      .oneof({ weight: 20, arbitrary: fc.constantFrom(...FLOP_SUBTYPES) }, { weight: 1, arbitrary: fc.constant("ZZZZ") })
      .chain((styp) => fc.array(arbFlopBlock(styp), { minLength: 1, maxLength: 3 }).map((blocks) => ({ kind: "flop" as const, styp, blocks }))),
  },
  { weight: 1, arbitrary: arbFlid.chain((flid) => arbFfid(flid).map((ffid) => ({ kind: "fdel" as const, flid, ffid }))) },
  { weight: 1, arbitrary: arbPackage(arbSchdRecord, 1).map((records) => ({ kind: "schd" as const, styp: "RESP" as const, recs: records.length, records })) },
);

/**
 * META DTTM of each message: time mostly moves on, now and then back (stale messages). Minutes
 * from 2026-03-05 00:00, as `yyyyMMddHHmmss`.
 */
function dttmAt(minutes: number): string {
  const d = new Date(Date.UTC(2026, 2, 5) + minutes * 60_000);
  return `${d.getUTCFullYear()}${pad2(d.getUTCMonth() + 1)}${pad2(d.getUTCDate())}${pad2(d.getUTCHours())}${pad2(d.getUTCMinutes())}00`;
}

/** A valid DNLD of 3–5 pool flights, so most streams start with flights to update. */
const arbOpening: Arbitrary<Undated<ModelMessage>> = fc
  .uniqueArray(arbSchdRecord, { selector: (r) => r.flid, minLength: 3, maxLength: 5 })
  .map((records) => ({ kind: "schd" as const, styp: "DNLD" as const, recs: records.length, records }));

/**
 * A stream of messages with their DTTMs, as the model reads them: most open with a valid DNLD;
 * time mostly moves on, now and then back (stale messages).
 */
export const arbMessageStream = (maxLength = 25): Arbitrary<ModelMessage[]> =>
  fc
    .tuple(
      fc.option(arbOpening, { freq: 5, nil: undefined }),
      fc.array(fc.tuple(arbUndated, fc.integer({ min: -60, max: 90 })), { minLength: Math.min(5, maxLength), maxLength }),
    )
    .map(([opening, items]) => {
      let minutes = 600;
      const all: [Undated<ModelMessage>, number][] = opening === undefined ? items : [[opening, 0], ...items];
      return all.map(([m, step]) => {
        minutes = Math.max(0, minutes + step);
        return { ...m, dttm: dttmAt(minutes) } as ModelMessage;
      });
    });

/** A DNLD the processors must refuse, whatever the state: a package rule broken on purpose. */
export const arbInvalidSnapshot: Arbitrary<Undated<ModelMessage> & { kind: "schd" }> = fc
  .tuple(fc.uniqueArray(arbSchdRecord, { selector: (r) => r.flid, minLength: 1, maxLength: 3 }), fc.constantFrom("recs", "duplicate", "missing", "cleared"))
  .map(([records, fault]) => {
    const [first, ...rest] = records as [FlightRecord, ...FlightRecord[]];
    const { FLNO: _flno, ...withoutFlno } = first.scalars;
    const without = { ...first, scalars: withoutFlno };
    switch (fault) {
      case "recs":
        return { kind: "schd" as const, styp: "DNLD" as const, recs: records.length + 1, records };
      case "duplicate":
        return { kind: "schd" as const, styp: "DNLD" as const, recs: records.length + 1, records: [...records, first] };
      case "missing":
        return { kind: "schd" as const, styp: "DNLD" as const, recs: records.length, records: [without, ...rest] };
      default:
        return { kind: "schd" as const, styp: "DNLD" as const, recs: records.length, records: [{ ...first, scalars: { ...first.scalars, FLIN: null } }, ...rest] };
    }
  });

/** The message as SIS XML (WIRE.md), as the mailbox would hold it. */
export function messageToXml(m: ModelMessage, seqn: number, style: XmlStyle = {}): string {
  const type = m.kind === "schd" || m.kind === "schdDel" ? "SCHD" : "FLOP";
  const styp = m.kind === "fdel" ? "FDEL" : m.kind === "schdDel" ? "DEL" : m.styp;
  const meta = { sndr: "AODB", seqn, dttm: m.dttm, type, styp };
  if (m.kind === "schd") return messageXml(meta, schdXml(m.records, m.recs, style));
  if (m.kind === "schdDel") return messageXml(meta, `<SCHD><RECS>${m.recs}</RECS>${m.flids.map((f) => `<FLTR><FLID>${f}</FLID></FLTR>`).join("")}</SCHD>`);
  if (m.kind === "flop") return messageXml(meta, m.blocks.map((b) => flopBlockToXml(b, style)).join(""));
  const ffid = m.ffid === undefined ? "" : `<FFID>${m.ffid === null ? "" : escapeXml(m.ffid)}</FFID>`;
  return messageXml(meta, `<FLOP><FLID>${m.flid}</FLID>${ffid}<FDEL/></FLOP>`);
}

export { arbXmlStyle };
