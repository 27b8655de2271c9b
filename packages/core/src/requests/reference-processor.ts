import type { MsgKind } from "../model/msg-kind.js";
import type { Processor, ProcessorResult } from "../processing/processor.js";
import type { RefChange } from "./reference-entry.js";
import { matchReply } from "./reply-match.js";

type Reference = Extract<MsgKind, { kind: "reference" }>;

export interface ReferenceProcessorOptions {
  /** Airport local time = UTC + this; reads the reply DTTM for matching. Default +480. */
  readonly airportUtcOffsetMinutes: number;
  /**
   * Types that are ignorable unless they answer an open RQRD (WIRE.md: REGN is both). Default
   * the codec's ignorable list (`LDM`, `REGN`, `RSTA`, `EROR`).
   */
  readonly ignorableTypes: readonly string[];
}

export const DEFAULT_REFERENCE_PROCESSOR_OPTIONS: ReferenceProcessorOptions = {
  airportUtcOffsetMinutes: 480,
  ignorableTypes: ["LDM", "REGN", "RSTA", "EROR"],
};

/**
 * Reference data (`<reftype>/RESP|DNLD|ADD|UPD|DEL`, WIRE.md "Kinds") into `REF_MASTER`, written
 * in the run's transaction like flight state:
 *
 * 1. A `RESP` must answer the open `RQRD` of its type (`matchReply`, rule audited on the
 *    request); otherwise it changes nothing: SKIPPED `no-request` (`ignored:<TYPE>` for an
 *    ignorable type such as REGN). A matched RESP closes its request (DONE).
 * 2. `DNLD`, `ADD`, `UPD`, `DEL` are pushed by the upstream unasked and apply as they come,
 *    except for an ignorable type: SKIPPED `ignored:<TYPE>` (the codec already routes those to
 *    `ignorable`, this is the second line).
 * 3. The package is all or nothing: `RECS` missing or ≠ the record count, or one key twice →
 *    DEAD(PROTOCOL), nothing written, the request stays open.
 * 4. Each record upserts `(RTYPE, RKEY)` with its raw attributes; `DEL` keeps the row as a
 *    tombstone (`deleted`). (ours) Like flight snapshots, a RESP or DNLD deletes nothing: keys
 *    absent from it stay.
 */
export function referenceProcessor(options: Partial<ReferenceProcessorOptions> = {}): Processor<Reference> {
  const o = { ...DEFAULT_REFERENCE_PROCESSOR_OPTIONS, ...options };
  const ignorable = (t: string) => o.ignorableTypes.includes(t);
  return {
    flightsOf: () => [],
    apply(body, ctx): ProcessorResult {
      const { rtype, styp } = body;
      const match =
        styp === "RESP" ? matchReply(ctx.openRequests, { requestType: `RQRD/${rtype}`, dttm: ctx.meta.dttm }, { airportUtcOffsetMinutes: o.airportUtcOffsetMinutes }) : undefined;
      if (match === undefined && (styp === "RESP" || ignorable(rtype))) {
        return { type: "skipped", reason: ignorable(rtype) ? `ignored:${rtype}` : "no-request" };
      }
      const where = `${rtype}/${styp}`;
      if (body.recs === undefined) return { type: "rejected", reason: `${where}: RECS missing` };
      if (body.recs !== body.records.length) return { type: "rejected", reason: `${where}: RECS ${body.recs} but ${body.records.length} records` };
      const seen = new Set<string>();
      const references: RefChange[] = [];
      for (const r of body.records) {
        if (seen.has(r.rkey)) return { type: "rejected", reason: `${where}: key ${r.rkey} twice in one package` };
        seen.add(r.rkey);
        references.push({ rtype, rkey: r.rkey, attributes: r.attributes, deleted: styp === "DEL", msgId: ctx.msgId });
      }
      return { type: "applied", flights: [], events: [], references, ...(match ? { answered: match } : {}) };
    },
  };
}
