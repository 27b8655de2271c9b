import type { FlightRecord } from "./flight-record.js";
import type { FlopBlock } from "./flop-block.js";
import type { SeasonalSchedule } from "./seasonal-schedule.js";
import type { RefFields } from "./reference-schema.js";

/** A `SCHD` body: the declared record count and the flight records, in wire order. */
export interface SchdBody {
  /** The `RECS` value; `undefined` when the element was missing (a PROTOCOL fault for snapshots). */
  readonly recs: number | undefined;
  readonly flights: readonly FlightRecord[];
}

/** A `SCHD/DEL` body: the declared record count and the FLIDs of its `FLTR` records (nothing else is read). */
export interface SchdDelBody {
  /** The `RECS` value; `undefined` when the element was missing. */
  readonly recs: number | undefined;
  readonly flids: readonly string[];
}

/** One reference-data record (WIRE.md "Reference data"): its key and its typed fields. */
export interface RefRecord {
  /** The text of the type's key element, trimmed, otherwise as sent. */
  readonly rkey: string;
  /** Every other child, decoded by the type's schema (`model/reference-schema.ts`). */
  readonly fields: RefFields;
}

/**
 * What a message asks for, the first dispatch key (WIRE.md "Kinds"). Every variant has a `kind`;
 * processors are chosen by it.
 */
export type MsgKind =
  /** `SCHD/DNLD` or `SCHD/RESP`: a snapshot of many flights, all or nothing. */
  | { readonly kind: "snapshot"; readonly styp: "DNLD" | "RESP"; readonly body: SchdBody }
  /**
   * `SCHD/ADFT`, and `SCHD/ADD` / `SCHD/UPD` (which upstream treats as ADFT): add or update the
   * listed flights; deletes nothing. Whether ADD/UPD are applied so is the processor's option.
   */
  | { readonly kind: "adft"; readonly styp: "ADFT" | "ADD" | "UPD"; readonly body: SchdBody }
  /** `SCHD/DEL`: delete the listed flights, each as FDEL does; unknown FLIDs are no-ops. */
  | { readonly kind: "schdDel"; readonly body: SchdDelBody }
  /** `FLOP/<subtype>` other than FDEL: update the group the subtype names on one or more flights. */
  | { readonly kind: "flop"; readonly styp: string; readonly blocks: readonly FlopBlock[] }
  /** `FLOP/FDEL`: delete one flight. */
  | { readonly kind: "fdel"; readonly flid: string; readonly ffid?: string | null | undefined }
  /**
   * A TYPE (or FLOP subtype) the type policy ignores (by default `SCHS`, `LDM`, `RSTA`, `EROR`):
   * not parsed, SKIPPED `ignored:<TYPE>`, or `ignored:FLOP/<STYP>` when `styp` is given (the
   * subtype's own setting decided).
   */
  | { readonly kind: "ignorable"; readonly type: string; readonly styp?: string }
  /** `SCHS/<subtype>` when processed: the seasonal schedule (no processor yet: ignored by default). */
  | { readonly kind: "seasonal"; readonly styp: string; readonly body: SeasonalSchedule }
  /** A reference-data message (`<reftype>/RESP|DNLD|ADD|UPD|DEL`), records in wire order. */
  | {
      readonly kind: "reference";
      readonly rtype: string;
      readonly styp: string;
      /** `RECS` as declared (untrustworthy: the processor only warns on a mismatch); undefined when absent. */
      readonly recs: number | undefined;
      readonly records: readonly RefRecord[];
    }
  /** A valid envelope of a type/subtype msgx has no decoder for, or the type policy calls unsupported. */
  | { readonly kind: "unsupported"; readonly type: string; readonly styp: string };

export type MsgKindName = MsgKind["kind"];
