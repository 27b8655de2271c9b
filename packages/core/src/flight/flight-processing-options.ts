import { Target } from "../outbox/outbox-event.js";

/**
 * How the flight processors are set up. Fixed per deployment: changing `dayStartOffsetMinutes`
 * changes which operation day new flights get (stored days never move).
 */
export interface FlightProcessingOptions {
  /**
   * Minutes after local midnight at which an operation day starts (WIRE.md "Body formats"): with
   * 240, a flight scheduled at 03:59 belongs to the previous day. Default 0.
   */
  readonly dayStartOffsetMinutes: number;
  /**
   * The airport's offset from UTC in minutes (+480 for China, the default). META DTTM is airport
   * local time with no zone; this turns it into an instant to compare with `OpenRequest.sentAt`.
   * (ours) A fixed offset, since the airports we serve keep no daylight saving time.
   */
  readonly airportUtcOffsetMinutes: number;
  /** The outbox target of the change stream (every change). Default `KAFKA:msg`. */
  readonly msgTopicTarget: Target;
  /** The outbox target of the compacted latest-state stream. Default `KAFKA:schd`. */
  readonly schdTarget: Target;
  /**
   * What a SCHD package whose `RECS` is missing or differs from its number of `FLTR` records
   * gets (WIRE.md "Snapshot rules"): `reject` (default, the product's rule) — DEAD(PROTOCOL),
   * nothing written; `warn` — applied as if RECS were right, with a `recs-mismatch` warning
   * (upstream never reads RECS and its own samples carry wrong counts).
   */
  readonly schdRecsCheck: "reject" | "warn";
  /**
   * (ours) Whether `SCHD/ADD` and `SCHD/UPD` are applied as `SCHD/ADFT` (add or update the listed
   * flights, delete nothing), as upstream treats them. Default `true`; `false` makes them
   * FAILED(UNSUPPORTED), nothing written.
   */
  readonly schdAddUpdAsAdft: boolean;
  /**
   * (ours) What a PROTOCOL fault in one block of a FLOP refuses (WIRE.md "FLOP subtypes"):
   * `message` (default) — the whole message is DEAD(PROTOCOL), nothing written; `block` — that
   * block is skipped with a `flop-block-fault` warning and the others apply (the message is
   * DEAD(PROTOCOL) only when every block is faulty).
   */
  readonly flopFaultScope: "message" | "block";
  /**
   * (ours) An empty FLOP collection element of the replace group (PSDT GTDT CKDT CLDT CHDT CHOT
   * ABTM ROUT) or of VIPF: `clear` (default) clears the set; `reject` makes it PROTOCOL, as
   * upstream refuses an empty GTDT…ABTM and never deletes VIPs. An empty ERUT, DELY or SRVT
   * always clears.
   */
  readonly flopEmptyCollection: "clear" | "reject";
  /**
   * (ours) An empty ACFT, FLIN or FLTY in its FLOP (fields every SCHD record must state):
   * `reject` (default) makes it PROTOCOL; `clear` clears the field.
   */
  readonly flopRequiredEmpty: "reject" | "clear";
  /**
   * (ours) Whether a FLOP/PSDT row that keeps its key and stand keeps the push time, push
   * indicator and tractor time that PSHT/TIPT set on it. Default `true`; `false` replaces the
   * rows whole.
   */
  readonly psdtKeepsStandRowFields: boolean;
}

export const DEFAULT_FLIGHT_PROCESSING_OPTIONS: FlightProcessingOptions = {
  dayStartOffsetMinutes: 0,
  airportUtcOffsetMinutes: 480,
  msgTopicTarget: Target.MSG,
  schdTarget: Target.SCHD,
  schdRecsCheck: "reject",
  schdAddUpdAsAdft: true,
  flopFaultScope: "message",
  flopEmptyCollection: "clear",
  flopRequiredEmpty: "reject",
  psdtKeepsStandRowFields: true,
};

/** Fills the options not given with {@link DEFAULT_FLIGHT_PROCESSING_OPTIONS}. */
export function flightProcessingOptions(options: Partial<FlightProcessingOptions> = {}): FlightProcessingOptions {
  return { ...DEFAULT_FLIGHT_PROCESSING_OPTIONS, ...options };
}
