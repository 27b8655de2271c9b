import type { CollectionRow, WireValue } from "./flight-record.js";

/**
 * The fields of an SCHS `FLTR` with their value kinds (WIRE.md "Seasonal schedule"). A seasonal
 * record has no FLID and no SODT: it names a flight by airline, number and direction, over a
 * period, on some days of the week, at a local time of day.
 * - `date`: `ddMMMyy` (month in any case, `yy` = 20yy), kept as ISO `yyyy-MM-dd`;
 * - `clock`: `HHMM` local time of day (00–23, 00–59), kept as `HH:MM`;
 * - `days`: `DYOP`, seven characters Monday..Sunday, each the day's digit (1..7) when the flight
 *   operates that day or `0` when not, kept as sent;
 * - `text`, `int`, `oneOf` as for flights (trimmed text, canonical digits, one listed value).
 */
export const SEASONAL_FIELDS = {
  ALCD: "text",
  FLNO: "text",
  MVIN: { oneOf: ["A", "D"] },
  STDT: "date",
  EDDT: "date",
  DYOP: "days",
  SCHT: "clock",
  FLTY: "text",
  FLIN: { oneOf: ["D", "I", "M", "R"] },
  ACFT: "text",
  RENO: "text",
  TAOP: "text",
  TAFL: "text",
  TRML: "text",
  MAXP: "int",
  CSOP: "text",
  CSFT: "text",
} as const;
export type SeasonalField = keyof typeof SEASONAL_FIELDS;

/**
 * One seasonal flight as the message states it. Absent elements are absent, empty ones `null`.
 * `ROUT` rows (key `RTNO`): `APCD`, `SCAT`, `SCDT` as `HH:MM` (an empty SCDT occurs). `ERUT` rows
 * (key `RTNO`): `APCD`; `SCAT`, `SCDT` as `HH:MM` or, when sent as `ddMMMyyHHmm`, ISO local
 * `yyyy-MM-ddTHH:mm`; `SADC`, `SDDC` signed day offsets (`+1`, `-2`). A collection absent from
 * the record is absent here; one empty element is `[]`.
 */
export interface SeasonalFlight {
  readonly fields: Readonly<Partial<Record<SeasonalField, WireValue>>>;
  readonly rout?: readonly CollectionRow[];
  readonly erut?: readonly CollectionRow[];
}

/** An SCHS body: the season and its flights, in wire order. */
export interface SeasonalSchedule {
  /** Season name (`SNAM`). */
  readonly snam?: WireValue;
  /** Home airport (`APCD`). */
  readonly apcd?: WireValue;
  /** Season start and end (`SDAT`, `EDAT`), ISO `yyyy-MM-dd`. */
  readonly sdat?: WireValue;
  readonly edat?: WireValue;
  /** `RECS` as declared; undefined when absent (checked by a seasonal processor, none yet). */
  readonly recs: number | undefined;
  readonly flights: readonly SeasonalFlight[];
}
