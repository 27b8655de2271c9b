/**
 * The fault battery's model and checker.
 *
 * The model runs the same messages through core's pump over the in-memory fakes (mailbox ids 1..N
 * in input order, a manual clock, no faults): what an uninterrupted, perfect run must leave — each
 * message's final status, every msg-topic event per FLID in order, the last schd record per FLID
 * and the final flights. The checker compares what the real run left on Kafka and in PostgreSQL
 * and counts every way it can differ.
 */
import { defaultProcessors, decodeMessage, EventType, flightToPayload, Pump, referenceProcessor, silentLogger, Target, type FlightState } from "@msgx/core";
import { InMemoryMailbox, InMemoryPipelineStore, ManualClock } from "@msgx/core/fakes";
import type { ConsumedRecord } from "./infra.js";

/** JSON with object keys sorted at every level: equal values, equal text (jsonb reorders keys). */
export function canonical(value: unknown): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (v !== null && typeof v === "object") return Object.fromEntries(Object.keys(v as object).sort().map((k) => [k, sort((v as Record<string, unknown>)[k])]));
    return v;
  };
  return JSON.stringify(sort(value));
}
const canonicalText = (text: string | null): string | null => (text === null ? null : canonical(JSON.parse(text)));

export interface ExpectedEvent {
  readonly version: number;
  readonly sourceMsgId: number;
  /** Canonical JSON of the record value (null for a null value). */
  readonly value: string | null;
}

export interface Expected {
  readonly messages: number;
  /** msg id → "STATUS" or "STATUS/ERROR_CLASS". */
  readonly statuses: Map<number, string>;
  readonly msgByKey: Map<string, ExpectedEvent[]>;
  readonly lastSchdByKey: Map<string, ExpectedEvent>;
  /** flid → canonical payload of the final flight. */
  readonly flights: Map<string, string>;
}

export const statusKey = (status: string, errorClass: string | null | undefined): string => (errorClass ? `${status}/${errorClass}` : status);

export interface ModelOptions {
  readonly maxRun?: number;
  readonly airportUtcOffsetMinutes?: number;
  readonly dayStartOffsetMinutes?: number;
}

export async function modelOutcome(raws: readonly string[], options: ModelOptions = {}): Promise<Expected> {
  const clock = new ManualClock(Date.now());
  const store = new InMemoryPipelineStore(clock);
  const mailbox = new InMemoryMailbox(clock);
  const ids = raws.map((raw) => mailbox.insert(raw));
  await store.enqueue(ids.map((msgId) => ({ msgId, receivedAt: clock.now() })), { horizon: ids.at(-1) ?? 0 });
  const pump = new Pump(
    {
      store,
      mailbox,
      clock,
      logger: silentLogger,
      decode: (raw) => decodeMessage(raw),
      // As the runner composes them (app/message-handling.ts): the demo day carries reference data too.
      processors: {
        ...defaultProcessors({ airportUtcOffsetMinutes: options.airportUtcOffsetMinutes ?? 480, dayStartOffsetMinutes: options.dayStartOffsetMinutes ?? 0 }),
        reference: referenceProcessor({ airportUtcOffsetMinutes: options.airportUtcOffsetMinutes ?? 480 }),
      },
      horizon: () => Number.MAX_SAFE_INTEGER,
    },
    { maxRun: options.maxRun ?? 200 },
  );
  for (let guard = 0; guard < 1_000_000; guard++) {
    const step = await pump.step();
    if (step.did === "idle") break;
    if (step.did === "wait") clock.set(Math.max(clock.now() + 1, step.until));
    else if (step.did !== "processed") throw new Error(`model: unexpected pump step ${JSON.stringify(step)}`);
  }
  const t = store.tables;
  const statuses = new Map<number, string>();
  for (const [id, r] of t.records) statuses.set(id, statusKey(r.status, r.errorClass));
  const msgByKey = new Map<string, ExpectedEvent[]>();
  const lastSchdByKey = new Map<string, ExpectedEvent>();
  for (const e of [...t.events].sort((a, b) => a.eventId - b.eventId)) {
    if (e.target === Target.MSG) {
      const value = e.payload === null || e.payload === undefined ? null : canonical(e.payload);
      const list = msgByKey.get(e.partitionKey) ?? [];
      list.push({ version: e.stateVersion, sourceMsgId: e.sourceMsgId, value });
      msgByKey.set(e.partitionKey, list);
    } else if (e.target === Target.SCHD) {
      const value = e.eventType === EventType.TOMBSTONE || e.payload === null || e.payload === undefined ? null : canonical(e.payload);
      const prev = lastSchdByKey.get(e.partitionKey);
      if (!prev || e.stateVersion >= prev.version) lastSchdByKey.set(e.partitionKey, { version: e.stateVersion, sourceMsgId: e.sourceMsgId, value });
    }
  }
  const flights = new Map<string, string>();
  for (const [flid, f] of t.flights) flights.set(flid, canonical(flightToPayload(f)));
  return { messages: raws.length, statuses, msgByKey, lastSchdByKey, flights };
}

// --------------------------------------------------------------------------------------- checker

export interface TopicCounts {
  /** Records on the msg topic (resends included). */
  readonly msgRecords: number;
  readonly firstDeliveries: number;
  /** Records carrying an event id already delivered, with identical content (allowed: at least once). */
  readonly resends: number;
  /** Model events (FLID, version) never delivered. */
  readonly lost: number;
  /** The same change delivered under a second event id, a resend with different content, or an effect the model does not have. */
  readonly duplicatedEffects: number;
  /** First deliveries of a FLID whose event id or version does not rise. */
  readonly reorders: number;
  /** Delivered (FLID, version) whose value differs from the model's. */
  readonly payloadMismatches: number;
  readonly schdRecords: number;
  /** schd records of a FLID whose version went down. */
  readonly schdReorders: number;
  /** FLIDs whose last schd record is not the model's last state (or missing). */
  readonly schdMismatches: number;
}

export function checkTopics(expected: Expected, msg: readonly ConsumedRecord[], schd: readonly ConsumedRecord[]): TopicCounts {
  let resends = 0;
  let duplicatedEffects = 0;
  let reorders = 0;
  let lost = 0;
  let payloadMismatches = 0;
  let firstDeliveries = 0;
  const firstValue = new Map<string, string | null>();
  const delivered = new Map<string, { eventId: number; version: number; value: string | null }[]>();
  for (const r of msg) {
    const key = r.key ?? "";
    const eventId = r.headers["msgx-event-id"] ?? "";
    const value = canonicalText(r.value);
    if (firstValue.has(eventId)) {
      if (firstValue.get(eventId) === value) resends += 1;
      else duplicatedEffects += 1;
      continue;
    }
    firstValue.set(eventId, value);
    firstDeliveries += 1;
    const list = delivered.get(key) ?? [];
    const version = Number(r.headers["msgx-state-version"]);
    const prev = list.at(-1);
    if (prev && (Number(eventId) <= prev.eventId || version <= prev.version)) {
      if (list.some((d) => d.version === version)) duplicatedEffects += 1;
      else reorders += 1;
    }
    list.push({ eventId: Number(eventId), version, value });
    delivered.set(key, list);
  }
  for (const [key, events] of expected.msgByKey) {
    const got = delivered.get(key) ?? [];
    for (const e of events) {
      const d = got.find((x) => x.version === e.version);
      if (!d) lost += 1;
      else if (d.value !== e.value) payloadMismatches += 1;
    }
  }
  for (const [key, got] of delivered) {
    const want = new Set((expected.msgByKey.get(key) ?? []).map((e) => e.version));
    duplicatedEffects += got.filter((d) => !want.has(d.version)).length;
  }

  let schdReorders = 0;
  let schdMismatches = 0;
  const lastSchd = new Map<string, { version: number; value: string | null }>();
  for (const r of schd) {
    const key = r.key ?? "";
    const version = Number(r.headers["msgx-state-version"]);
    const prev = lastSchd.get(key);
    if (prev && version < prev.version) schdReorders += 1;
    lastSchd.set(key, { version, value: canonicalText(r.value) });
  }
  for (const [key, e] of expected.lastSchdByKey) {
    const got = lastSchd.get(key);
    if (!got || got.version !== e.version || got.value !== e.value) schdMismatches += 1;
  }
  for (const key of lastSchd.keys()) if (!expected.lastSchdByKey.has(key)) schdMismatches += 1;
  return { msgRecords: msg.length, firstDeliveries, resends, lost, duplicatedEffects, reorders, payloadMismatches, schdRecords: schd.length, schdReorders, schdMismatches };
}

export interface StateCounts {
  /** Messages whose final status (and error class) differs from the model's. */
  readonly statusMismatches: number;
  /** Messages DEAD in the real run that the model does not have DEAD (an outage or crash made them DEAD). */
  readonly deadFromFaults: number;
  readonly messagesMissing: number;
  /** Outbox rows DEAD or still PENDING after the run settled. */
  readonly eventsDead: number;
  readonly eventsPending: number;
  /** BACKFILL_TODO rows left, and mailbox rows never marked processed. */
  readonly backfillDebt: number;
  readonly unbackfilledRows: number;
  /** Flights whose final state differs from the model's (or missing / extra). */
  readonly flightMismatches: number;
}

/**
 * Every count a run with nothing lost, duplicated, reordered or left behind has: what each battery
 * expects of `checkTopics` and `checkState` together (`toMatchObject`).
 */
export const CLEAN_RUN = {
  lost: 0,
  duplicatedEffects: 0,
  reorders: 0,
  payloadMismatches: 0,
  schdReorders: 0,
  schdMismatches: 0,
  statusMismatches: 0,
  deadFromFaults: 0,
  messagesMissing: 0,
  eventsDead: 0,
  eventsPending: 0,
  backfillDebt: 0,
  unbackfilledRows: 0,
  flightMismatches: 0,
} as const satisfies Partial<TopicCounts & StateCounts>;

export interface RealState {
  /** msg id → status key. */
  readonly statuses: ReadonlyMap<number, string>;
  readonly eventsDead: number;
  readonly eventsPending: number;
  readonly backfillTodos: number;
  readonly unbackfilledRows: number;
  readonly flights: readonly FlightState[];
}

export function checkState(expected: Expected, real: RealState): StateCounts {
  let statusMismatches = 0;
  let deadFromFaults = 0;
  let messagesMissing = 0;
  for (const [id, want] of expected.statuses) {
    const got = real.statuses.get(id);
    if (got === undefined) messagesMissing += 1;
    else if (got !== want) {
      statusMismatches += 1;
      if (got.startsWith("DEAD") && !want.startsWith("DEAD")) deadFromFaults += 1;
    }
  }
  let flightMismatches = 0;
  const got = new Map(real.flights.map((f) => [f.flid, canonical(flightToPayload(f))]));
  for (const [flid, payload] of expected.flights) if (got.get(flid) !== payload) flightMismatches += 1;
  for (const flid of got.keys()) if (!expected.flights.has(flid)) flightMismatches += 1;
  return {
    statusMismatches,
    deadFromFaults,
    messagesMissing,
    eventsDead: real.eventsDead,
    eventsPending: real.eventsPending,
    backfillDebt: real.backfillTodos,
    unbackfilledRows: real.unbackfilledRows,
    flightMismatches,
  };
}
