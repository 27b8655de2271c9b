import type { FlightState } from "@msgx/core";

/** The FLID of the i-th seeded flight. */
export const flidOf = (i: number): string => String(900_000 + i);

/** The i-th flight a benchmark starts from (stored directly, not timed): scalars, no collections. */
export const seedFlight = (i: number): FlightState => ({
  flid: flidOf(i),
  ffid: `CZ-CZ${3000 + i}-D-05MAR260800-D`,
  operationDay: "20260305",
  stateVersion: 1,
  lastMsgId: 0,
  lastSrcDttm: "20260305000000",
  deleted: false,
  scalars: { ALCD: "CZ", FLNO: `CZ${3000 + i}`, MVIN: "D", SODT: "2026-03-05T08:00", FLTY: "W", FLIN: "D" },
  collections: {},
});
