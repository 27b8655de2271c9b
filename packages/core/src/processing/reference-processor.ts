import type { MsgKind } from "../model/msg-kind.js";
import type { RefFields } from "../model/reference-schema.js";
import { Target } from "../outbox/outbox-event.js";
import type { MessageWarning, Processor, ProcessorResult } from "./processor.js";
import type { RefChange, RefState } from "../requests/reference-entry.js";
import { referenceEvent } from "../requests/reference-events.js";
import { RunReferences } from "../requests/reference-view.js";
import { matchReply } from "../requests/reply-match.js";

type Reference = Extract<MsgKind, { kind: "reference" }>;

export interface ReferenceProcessorOptions {
  /** Airport local time = UTC + this; reads the reply DTTM for matching. Default +480. */
  readonly airportUtcOffsetMinutes: number;
  /** The outbox target of reference events (the compacted reference topic). Default `KAFKA:ref`. */
  readonly target: Target;
}

export const DEFAULT_REFERENCE_PROCESSOR_OPTIONS: ReferenceProcessorOptions = {
  airportUtcOffsetMinutes: 480,
  target: Target.REF,
};

/** Subtypes that replace the whole type (upstream semantics): every stored key not sent is deleted. */
const REPLACING = new Set(["DNLD", "RESP"]);

/** Whether two field sets hold the same values, whatever the order of their names. */
function sameFields(a: RefFields, b: RefFields): boolean {
  const canonical = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(canonical)
      : v !== null && typeof v === "object"
        ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical((v as Record<string, unknown>)[k])]))
        : v;
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

/** RECS is untrustworthy upstream (WIRE.md): a count that disagrees is told, never refused. */
function recsWarnings(body: Reference): MessageWarning[] {
  const where = `${body.rtype}/${body.styp}`;
  const n = body.records.length;
  if (body.recs === undefined) return [{ code: "recs-mismatch", detail: `${where}: RECS missing, ${n} records` }];
  if (body.recs !== n) return [{ code: "recs-mismatch", detail: `${where}: RECS ${body.recs} but ${n} records` }];
  return [];
}

/**
 * Reference data (`<reftype>/RESP|DNLD|ADD|UPD|DEL`, WIRE.md "Reference data") into `REF_MASTER`,
 * with the upstream semantics, written in the run's transaction like flight state:
 *
 * 1. A `RESP` must answer the open `RQRD` of its type (`matchReply`, rule audited on the
 *    request); otherwise it changes nothing: SKIPPED `no-request`. A matched RESP closes its
 *    request (DONE). `DNLD`, `ADD`, `UPD`, `DEL` are pushed unasked and apply as they come.
 * 2. One key twice in a package → DEAD(PROTOCOL), nothing written, the request stays open. A
 *    `RECS` that disagrees with the records (or is missing) is a `recs-mismatch` warning only.
 * 3. `DNLD` and `RESP` replace the type: every record is upserted and every stored live key of
 *    the type the message does not name is deleted. `ADD` and `UPD` upsert by key. `DEL` deletes
 *    by key; keys not stored (or already deleted) are no-ops.
 * 4. Only real changes count: an upsert whose fields equal the stored live row's changes nothing
 *    and publishes nothing. Each change raises the row's version by one and yields one event for
 *    the reference topic (`referenceEvent`): upserts in wire order, then a DNLD/RESP's deletes in
 *    key order. A deleted row stays as a tombstone with its last fields.
 *
 * It reads the stored rows through `ProcessorContext.references`; `decideRun` loads every type
 * of the run's reference messages and gives the rows as they stand after earlier messages.
 */
export function referenceProcessor(options: Partial<ReferenceProcessorOptions> = {}): Processor<Reference> {
  const o = { ...DEFAULT_REFERENCE_PROCESSOR_OPTIONS, ...options };
  return {
    flightsOf: () => [],
    apply(body, ctx): ProcessorResult {
      const { rtype, styp } = body;
      const match =
        styp === "RESP" ? matchReply(ctx.openRequests, { requestType: `RQRD/${rtype}`, dttm: ctx.meta.dttm }, { airportUtcOffsetMinutes: o.airportUtcOffsetMinutes }) : undefined;
      if (styp === "RESP" && match === undefined) return { type: "skipped", reason: "no-request" };
      const sent = new Set<string>();
      for (const r of body.records) {
        if (sent.has(r.rkey)) return { type: "rejected", reason: `${rtype}/${styp}: key ${r.rkey} twice in one package` };
        sent.add(r.rkey);
      }
      const view = ctx.references ?? new RunReferences();
      const changes: RefChange[] = [];
      const change = (prev: RefState | undefined, rkey: string, fields: RefFields, deleted: boolean): void => {
        changes.push({ rtype, rkey, fields, deleted, version: (prev?.version ?? 0) + 1, msgId: ctx.msgId });
      };
      for (const r of body.records) {
        const prev = view.get(rtype, r.rkey);
        const live = prev !== undefined && !prev.deleted;
        if (styp === "DEL") {
          if (live) change(prev, r.rkey, prev.fields, true);
        } else if (!live || !sameFields(prev.fields, r.fields)) {
          change(prev, r.rkey, r.fields, false);
        }
      }
      if (REPLACING.has(styp)) {
        for (const rkey of view.liveKeys(rtype)) {
          const prev = view.get(rtype, rkey);
          if (!sent.has(rkey) && prev !== undefined) change(prev, rkey, prev.fields, true);
        }
      }
      const warnings = recsWarnings(body);
      return {
        type: "applied",
        flights: [],
        events: changes.map((c) => referenceEvent(c, ctx.meta.dttm, o.target)),
        references: changes,
        ...(match ? { answered: match } : {}),
        ...(warnings.length > 0 ? { warnings } : {}),
      };
    },
  };
}
