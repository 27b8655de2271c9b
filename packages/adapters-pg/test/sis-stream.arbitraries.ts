import type { FlightRecord, Meta } from "@msgx/core";
import { arbFlightRecord, flightRecordToXml, messageXml } from "@msgx/core/testing";
import fc from "fast-check";

/** What one message of a generated stream is. */
export type StreamItem =
  | { readonly kind: "flop"; readonly blocks: readonly FlightRecord[] }
  | { readonly kind: "fdel"; readonly flid: string }
  | { readonly kind: "duplicate"; readonly of: number }
  | { readonly kind: "ignorable" | "unsupported" | "malformed" | "protocol" };

const FLIDS = ["900101", "900102", "900103", "900104", "900105"];
const SODTS = ["2026-03-05T08:00", "2026-03-05T21:30", "2026-03-05T23:59", "2026-03-06T07:15"];

/** A flight record on one of a few FLIDs, its SODT (if any) on one of two days. */
const arbBlock = (): fc.Arbitrary<FlightRecord> =>
  fc.tuple(arbFlightRecord(), fc.constantFrom(...FLIDS), fc.option(fc.constantFrom(...SODTS), { nil: undefined, freq: 2 })).map(
    ([record, flid, sodt]) => {
      const { SODT: _dropped, ...scalars } = record.scalars;
      return { ...record, flid, scalars: sodt === undefined ? scalars : { ...scalars, SODT: sodt } };
    },
  );

export const arbStreamItem = (): fc.Arbitrary<StreamItem> =>
  fc.oneof(
    { weight: 10, arbitrary: fc.array(arbBlock(), { minLength: 1, maxLength: 2 }).map((blocks) => ({ kind: "flop" as const, blocks })) },
    { weight: 2, arbitrary: fc.constantFrom(...FLIDS).map((flid) => ({ kind: "fdel" as const, flid })) },
    { weight: 2, arbitrary: fc.nat({ max: 1_000 }).map((of) => ({ kind: "duplicate" as const, of })) },
    { weight: 3, arbitrary: fc.constantFrom("ignorable", "unsupported", "malformed", "protocol").map((kind) => ({ kind }) as StreamItem) },
  );

/** Raw messages for a stream: sequence numbers rise, a duplicate re-sends an earlier envelope. */
export function streamToRaws(items: readonly StreamItem[]): string[] {
  const metas: Meta[] = [];
  return items.map((item, i) => {
    const meta = (type: string, styp: string): Meta => ({ sndr: "AODB", seqn: 1000 + i, dttm: "20260305020000", type, styp });
    let m: Meta;
    let body: string;
    switch (item.kind) {
      case "flop":
        m = meta("FLOP", "ESTT");
        body = item.blocks.map((b) => flightRecordToXml(b, "FLOP")).join("");
        break;
      case "fdel":
        m = meta("FLOP", "FDEL");
        body = `<FLOP><FLID>${item.flid}</FLID><FDEL/></FLOP>`;
        break;
      case "duplicate": {
        const earlier = metas.length === 0 ? undefined : metas[item.of % metas.length];
        m = earlier ?? meta("FLOP", "ESTT");
        body = `<FLOP><FLID>${FLIDS[0]}</FLID><ESTT>05MAR261452</ESTT></FLOP>`;
        break;
      }
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
