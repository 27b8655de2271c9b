import type { Meta } from "../model/meta.js";
import type { ProcessorResult } from "../processing/processor.js";
import { canonicalContent, sameFlightContent, type FlightContent } from "./flight-content.js";
import { flightEvents } from "./flight-events.js";
import type { FlightProcessingOptions } from "./flight-processing-options.js";
import type { FlightState } from "../model/flight-state.js";

/**
 * The flights one message changes, gathered flight by flight and turned into one result. However
 * often a message touches a flight (two FLOP blocks for one FLID), the flight ends with at most
 * one new version and one event per target: the comparison is between the state before the
 * message and the content after all of it.
 */
export class MessageChanges {
  readonly #before = new Map<string, FlightState | undefined>();
  readonly #after = new Map<string, FlightContent>();

  constructor(
    private readonly msgId: number,
    private readonly meta: Meta,
    private readonly options: FlightProcessingOptions,
  ) {}

  /** Stages new content for `flid`; `before` is the flight as the message found it. */
  stage(flid: string, before: FlightState | undefined, content: FlightContent): void {
    if (!this.#before.has(flid)) this.#before.set(flid, before);
    this.#after.set(flid, content);
  }

  /** The content staged for `flid` so far in this message, if any. */
  staged(flid: string): FlightContent | undefined {
    return this.#after.get(flid);
  }

  /**
   * `applied` with the flights whose content really changed, each at version + 1 (1 for a new
   * flight) with `lastMsgId`/`lastSrcDttm` of this message, and their events in staging order.
   * Flights whose content is unchanged keep their version and bookkeeping and yield no event.
   */
  result(reason?: string): ProcessorResult {
    const flights: FlightState[] = [];
    for (const [flid, content] of this.#after) {
      const before = this.#before.get(flid);
      if (before !== undefined && sameFlightContent(before, content)) continue;
      flights.push({
        flid,
        ...canonicalContent(content),
        stateVersion: (before?.stateVersion ?? 0) + 1,
        lastMsgId: this.msgId,
        lastSrcDttm: this.meta.dttm,
      });
    }
    const events = flights.flatMap((f) => flightEvents(f, this.msgId, this.options));
    return reason === undefined ? { type: "applied", flights, events } : { type: "applied", flights, events, reason };
  }
}
