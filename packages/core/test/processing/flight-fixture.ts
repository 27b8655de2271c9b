import type { FlightState } from "@msgx/core";

/** A live flight with no scalars or collections: enough for tests that only hold, pass on or compare flights. */
export const flight = (flid: string, stateVersion = 1): FlightState => ({
  flid,
  ffid: null,
  operationDay: "20260305",
  stateVersion,
  lastMsgId: 1,
  lastSrcDttm: "20260305020000",
  deleted: false,
  scalars: {},
  collections: {},
});
