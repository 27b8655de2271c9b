import { readFileSync } from "node:fs";
import { expect } from "vitest";
import { decodeMessage } from "../../src/codec/xml-codec.js";
import { defaultProcessors } from "../../src/flight/default-processors.js";
import type { FlightProcessingOptions } from "../../src/flight/flight-processing-options.js";
import type { FlightState } from "../../src/model/flight-state.js";
import { DEFAULT_IDENTITY_OPTIONS } from "../../src/model/identity.js";
import type { ProcRecord } from "../../src/model/proc-record.js";
import type { OutboxEventDraft } from "../../src/outbox/outbox-event.js";
import { decideRun } from "../../src/processing/decide-run.js";
import { prepareRun } from "../../src/processing/prepare-run.js";
import type { OpenRequest } from "../../src/requests/open-request.js";
import { newProcRecord } from "../../src/processing/proc-machine.js";
import type { ProcessorTable } from "../../src/processing/processor.js";
import { DEFAULT_RETRY_POLICY } from "../../src/runtime/retry-policy.js";
import type { RunWarning } from "../../src/processing/run-decision.js";

/** The raw text of a shared SIS fixture (`test/fixtures/sis/`). */
export const sisFixture = (name: string): string => readFileSync(new URL(`../fixtures/sis/${name}`, import.meta.url), "utf8");

/**
 * The pipeline as a store would run it, one message per run: decode, `prepareRun`, load only the
 * flights the run names (so a wrong `flightsOf` shows), `decideRun`, then commit the decision
 * into plain maps. Stands in for the store so the processors are tested through the real run.
 */
export class FlightHarness {
  readonly flights = new Map<string, FlightState>();
  readonly events: OutboxEventDraft[] = [];
  readonly records: ProcRecord[] = [];
  /** Every warning the processors reported, with its message id, in order. */
  readonly warnings: RunWarning[] = [];
  readonly #owners = new Map<string, number>();
  readonly processors: ProcessorTable;
  /** The broker limit the decision checks every event against (`RunContext.maxRecordBytes`); unset = unchecked. */
  maxRecordBytes: number | undefined = undefined;
  #nextMsgId = 1;

  constructor(
    options: Partial<FlightProcessingOptions> = {},
    readonly now = Date.UTC(2026, 2, 5, 12, 0, 0),
  ) {
    this.processors = defaultProcessors(options);
  }

  /** Processes one raw message; returns its final record and the events it produced. */
  send(raw: string, openRequests: readonly OpenRequest[] = []): { record: ProcRecord; events: OutboxEventDraft[] } {
    const msgId = this.#nextMsgId++;
    const run = prepareRun(
      [newProcRecord(msgId, this.now, this.now)],
      new Map([[msgId, { found: true, text: raw }]]),
      (text) => decodeMessage(text),
      this.processors,
      DEFAULT_IDENTITY_OPTIONS,
    );
    const flights = new Map(run.flightIds.flatMap((f) => (this.flights.has(f) ? [[f, this.flights.get(f)!] as const] : [])));
    const identityOwners = new Map(run.identityKeys.flatMap((k) => (this.#owners.has(k) ? [[k, { msgId: this.#owners.get(k)!, contentHash: null }] as const] : [])));
    const decision = decideRun(run, { identityOwners, flights, openRequests }, {
      now: this.now,
      policy: DEFAULT_RETRY_POLICY,
      identity: DEFAULT_IDENTITY_OPTIONS,
      processors: this.processors,
      ...(this.maxRecordBytes === undefined ? {} : { maxRecordBytes: this.maxRecordBytes }),
    });
    for (const b of decision.bindings) this.#owners.set(b.identityKey, b.msgId);
    for (const f of decision.flights) this.flights.set(f.flid, f);
    this.events.push(...decision.events);
    this.warnings.push(...(decision.warnings ?? []));
    const record = decision.records[0]!;
    this.records.push(record);
    return { record, events: [...decision.events] };
  }
}

/**
 * Sends a message that must be refused: DEAD(PROTOCOL) with `reason` in its reason (a pattern, or
 * text it contains), and no flight state and no event written. Returns the record.
 */
export function expectRefused(h: FlightHarness, raw: string, reason: RegExp | string): ProcRecord {
  const flights = new Map(h.flights);
  const events = h.events.length;
  const { record } = h.send(raw);
  expect(record).toMatchObject({ status: "DEAD", errorClass: "PROTOCOL" });
  expect(record.reason).toMatch(reason);
  expect(h.flights).toStrictEqual(flights);
  expect(h.events).toHaveLength(events);
  return record;
}
