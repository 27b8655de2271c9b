import { decodeMessage, Pump, silentLogger, type FlightState, type PipelineStore, type ProcessorTable, type ProcRecord } from "@msgx/core";
import { InMemoryMailbox, InMemoryPipelineStore, ManualClock } from "@msgx/core/testing";
import { sql, type Kysely } from "kysely";
import { toMs, toNumber } from "../src/rows/values.js";

/** A pump over `store` fed from an in-memory mailbox holding `raws` (ids 1..n), on a manual clock. */
export interface PumpRig {
  readonly clock: ManualClock;
  readonly mailbox: InMemoryMailbox;
  readonly pump: Pump;
}

export async function rigPump(
  store: PipelineStore,
  clock: ManualClock,
  raws: readonly string[],
  options: PumpRigOptions,
): Promise<PumpRig> {
  const mailbox = new InMemoryMailbox(clock);
  const ids = raws.map((raw) => mailbox.insert(raw));
  await store.enqueue(
    ids.map((msgId) => ({ msgId, receivedAt: clock.now() })),
    { horizon: ids.length === 0 ? 0 : Math.max(...ids) },
  );
  return { clock, mailbox, pump: makePump(store, clock, mailbox, options) };
}

export interface PumpRigOptions {
  readonly maxRun: number;
  readonly processors: ProcessorTable;
  readonly fence?: number;
}

/** A pump over an existing mailbox (e.g. a new leader taking over the same stream). */
export function makePump(store: PipelineStore, clock: ManualClock, mailbox: InMemoryMailbox, options: PumpRigOptions): Pump {
  return new Pump(
    { store, mailbox, clock, logger: silentLogger, decode: (raw) => decodeMessage(raw), processors: options.processors, horizon: () => Number.MAX_SAFE_INTEGER },
    { maxRun: options.maxRun, ...(options.fence === undefined ? {} : { fence: options.fence }) },
  );
}

/** Steps the pump until idle, moving the clock over every backoff. Returns the steps taken. */
export async function drain(rig: PumpRig, maxSteps = 10_000): Promise<number> {
  for (let i = 1; i <= maxSteps; i++) {
    const step = await rig.pump.step();
    if (step.did === "idle") return i;
    if (step.did === "wait") rig.clock.set(Math.max(step.until, rig.clock.now()));
    else if (step.did !== "processed") throw new Error(`unexpected pump step: ${JSON.stringify(step)}`);
  }
  throw new Error(`pump not idle after ${maxSteps} steps`);
}

/** Everything a store holds that the pipeline's outcome is judged by. */
export interface StoreSnapshot {
  readonly records: readonly ProcRecord[];
  readonly identities: readonly (readonly [string, number])[];
  readonly flights: readonly FlightState[];
  readonly events: readonly Record<string, unknown>[];
  readonly backfill: readonly number[];
}

const normalizeEvent = (e: {
  eventId: number;
  target: string;
  partitionKey: string;
  eventType: string;
  stateVersion: number;
  payload: unknown;
  sourceMsgId: number;
  traceparent?: string | null;
  status: string;
  attempts: number;
  createdAt: number;
}) => ({
  eventId: e.eventId,
  target: e.target,
  partitionKey: e.partitionKey,
  eventType: e.eventType,
  stateVersion: e.stateVersion,
  payload: e.payload ?? null,
  sourceMsgId: e.sourceMsgId,
  traceparent: e.traceparent ?? null,
  status: e.status,
  attempts: e.attempts,
  createdAt: e.createdAt,
});

export function fakeSnapshot(store: InMemoryPipelineStore): StoreSnapshot {
  const t = store.tables;
  return {
    records: [...t.records.values()].sort((a, b) => a.msgId - b.msgId),
    identities: [...t.identities.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    flights: [...t.flights.values()].sort((a, b) => (a.flid < b.flid ? -1 : a.flid > b.flid ? 1 : 0)),
    events: t.events.map(normalizeEvent),
    backfill: [...t.backfill.keys()].sort((a, b) => a - b),
  };
}

export async function pgSnapshot(store: PipelineStore, db: Kysely<any>): Promise<StoreSnapshot> {
  const records = await store.list({});
  const identities = (await sql<{ k: string; m: unknown }>`SELECT identity_key AS k, msg_id AS m FROM msg_identity`.execute(db)).rows
    .map((r) => [r.k, toNumber(r.m)] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const flids = (await sql<{ flid: string }>`SELECT flid FROM flight_schd`.execute(db)).rows.map((r) => r.flid);
  const loaded = await store.transaction((tx) => tx.loadFlights(flids));
  const flights = [...loaded.values()].sort((a, b) => (a.flid < b.flid ? -1 : a.flid > b.flid ? 1 : 0));
  const events = (
    await sql<Record<string, unknown>>`
      SELECT event_id, target, partition_key, event_type, state_version, payload, source_msg_id, traceparent, status, attempts, created_at
      FROM msg_event ORDER BY event_id`.execute(db)
  ).rows.map((r) =>
    normalizeEvent({
      eventId: toNumber(r["event_id"]),
      target: r["target"] as string,
      partitionKey: r["partition_key"] as string,
      eventType: r["event_type"] as string,
      stateVersion: toNumber(r["state_version"]),
      payload: r["payload"],
      sourceMsgId: toNumber(r["source_msg_id"]),
      traceparent: r["traceparent"] as string | null,
      status: r["status"] as string,
      attempts: toNumber(r["attempts"]),
      createdAt: toMs(r["created_at"]),
    }),
  );
  const backfill = (await sql<{ m: unknown }>`SELECT msg_id AS m FROM backfill_todo ORDER BY msg_id`.execute(db)).rows.map((r) => toNumber(r.m));
  return { records, identities, flights, events, backfill };
}
