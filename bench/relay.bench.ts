/**
 * The outbox relay to Kafka: `MsgDispatcher` over `PgOutboxStore` + `KafkaDeliveryPort` draining
 * PENDING `KAFKA:msg` events (flight payloads of ~1 KB, keyed by FLID) — batched and pipelined
 * (`batchSize` 100, as the runner runs it), batched one step after the other, and one event per
 * send (`batchSize` 1) — and against the ceiling: the
 * same kafkajs client settings (idempotent, one request in flight, acks=all, murmur2) sending the
 * same records in raw batches of 100, with no database. Also `KafkaDeliveryPort.send` alone.
 * Each mode has its own topic (6 partitions) and schema; events are inserted before the timer.
 *
 *   node bench/run.mjs relay [--events 20000] [--single-events 2000 (0: leave out)] [--batch 100] [--flights 500] [--pause true|false] [--prepared-statements true|false]
 */
import { KafkaDeliveryPort } from "@msgx/adapters-kafka";
import { createPgStores } from "@msgx/adapters-pg";
import { emptyRunDecision, eventHeaders, MsgDispatcher, sentFoldStep, silentLogger, systemClock, Target, type DeliveryRecord, type OutboxEventDraft } from "@msgx/core";
import kafkajs from "kafkajs";
import { createTopics, deleteTopics, eventLoopTurn, flagArg, fmt, kafkaClient, machineInfo, numArg, printTable, runTag, timedMethods, URLS, writeReport } from "./fault/infra.js";

const EVENTS = numArg("events", 20_000);
const SINGLE_EVENTS = numArg("single-events", 2_000);
const BATCH = numArg("batch", 100);
/** `DeliveryDeps.pause` as the runner passes it (one `setImmediate` turn); `--pause false` leaves it out, for an A/B. */
const PAUSE = flagArg("pause", true);
const FLIGHTS = numArg("flights", 500);
/** `preparedStatements` of the relay's store (`createPgStores`): `--prepared-statements false` for an A/B. */
const PREPARED_STATEMENTS = flagArg("prepared-statements", true);
const PARTITIONS = 6;

interface Result {
  readonly mode: string;
  readonly events: number;
  readonly seconds: number;
  readonly eventsPerSecond: number;
  readonly sends: number;
  /** CPU time of this process (the relay or the producer, not PostgreSQL or the broker) per 1,000 events. */
  readonly cpuMsPer1000: number;
  /**
   * Relay modes: milliseconds per dispatcher step in `pending`, the port's `send`, `markSent`,
   * `markSentAndRead` (the pipelined relay's mark of one batch with the read behind the next), and the rest.
   */
  readonly msPerSend?: { pending: number; send: number; markSent: number; markSentAndRead: number; other: number };
}

/** A flight payload of the documented shape (docs/events.md), about 1 KB of JSON. */
function payload(flid: string, version: number, i: number): unknown {
  return {
    schemaVersion: 2,
    flid,
    ffid: `CZ-CZ${flid.slice(-4)}-D-05MAR260800-D`,
    operationDay: "20260305",
    stateVersion: version,
    deleted: false,
    lastMsgId: i + 1,
    lastSrcDttm: "20260305083000",
    fields: { ALCD: "CZ", FLNO: `CZ${flid.slice(-4)}`, MVIN: "D", SODT: "2026-03-05T08:00", FLTY: "W", FLIN: "D", ACFT: "320", TRML: "T2", STND: `A${100 + (i % 80)}`, ESTT: "2026-03-05T08:10", FTSS: "BOARDING" },
    collections: {
      ROUT: [{ key: "1", values: { APCD: "PEK", SCAT: "2026-03-05T10:45" } }],
      GTDT: [{ key: "1", values: { GATE: `A${(i % 40) + 1}`, PGOT: "2026-03-05T07:10", PGCT: "2026-03-05T07:45", GTYP: "D" } }],
      CKDT: [
        { key: "1", values: { CHKC: "C11", CCLS: "Y", PCOT: "2026-03-05T05:50", PCCT: "2026-03-05T07:20", CTYP: "D" } },
        { key: "2", values: { CHKC: "C12", CCLS: "F", PCOT: "2026-03-05T05:50", PCCT: "2026-03-05T07:20", CTYP: "D" } },
      ],
      DELY: [{ key: "1", values: { "@CODE": "81", "@STRT": "2026-03-05T08:00", "@DURA": "0015", "#text": "ATC flow" } }],
    },
  };
}

function drafts(count: number): OutboxEventDraft[] {
  const versions = new Map<string, number>();
  return Array.from({ length: count }, (_, i) => {
    const flid = String(900_001 + ((i * 7919) % FLIGHTS));
    const version = (versions.get(flid) ?? 1) + 1;
    versions.set(flid, version);
    return { target: Target.MSG, partitionKey: flid, eventType: "UPSERT", stateVersion: version, payload: payload(flid, version, i), sourceMsgId: i + 1 };
  });
}

async function relay(events: readonly OutboxEventDraft[], batchSize: number, pipelined: boolean): Promise<Result> {
  const tag = runTag(`relay_${batchSize}${pipelined ? "p" : ""}`);
  const topic = `msg_${tag}`;
  await createTopics([topic], PARTITIONS);
  const handle = await createPgStores({ connectionString: URLS.pg, schema: tag, max: 4, preparedStatements: PREPARED_STATEMENTS });
  const port = new KafkaDeliveryPort({ brokers: URLS.brokers.split(","), clientId: "msgx-bench-relay" });
  try {
    for (let i = 0; i < events.length; i += 2_000) {
      await handle.store.transaction((tx) => tx.applyRun({ ...emptyRunDecision, events: events.slice(i, i + 2_000) }));
    }
    await port.connect();
    await port.send(warmUp(topic)); // topic metadata and connections, as in the other modes
    // Where the time goes: each call to the store and the port, timed (no I/O added).
    const spent = { pending: 0, send: 0, markSent: 0, markSentAndRead: 0 };
    const timed = <T extends object>(target: T, names: readonly (keyof typeof spent)[]): T =>
      timedMethods(target, names, (name, ms) => (spent[name as keyof typeof spent] += ms));
    const dispatcher = new MsgDispatcher({ outbox: timed(handle.outbox, ["pending", "markSent", "markSentAndRead"]), delivery: timed(port, ["send"]), clock: systemClock, logger: silentLogger, ...(PAUSE ? { pause: eventLoopTurn } : {}) }, { topics: { [Target.MSG]: topic }, batchSize, pipelined });
    let sent = 0;
    let sends = 0;
    // The runner's sent-fold step beside the relay, on the same pool and cores, as in `msgx run`.
    const fold = sentFoldStep(handle.outbox);
    let folding = true;
    const folder = (async () => {
      while (folding) {
        const { after } = await fold.run(AbortSignal.timeout(60_000));
        if (after > 0) await new Promise((r) => setTimeout(r, after));
      }
    })();
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    try {
      for (;;) {
        const step = await dispatcher.step();
        if (step.did === "idle") break;
        if (step.did !== "sent") throw new Error(`unexpected step ${JSON.stringify(step)}`);
        sent += step.eventIds.length;
        sends += 1;
      }
      await dispatcher.settle();
    } finally {
      folding = false;
    }
    const seconds = (performance.now() - t0) / 1000;
    await folder;
    const cpuMsPer1000 = cpuPer1000(cpu0, sent);
    if (sent !== events.length) throw new Error(`sent ${sent} of ${events.length}`);
    const left = await handle.outbox.countPending(Target.MSG);
    if (left !== 0) throw new Error(`${left} events still PENDING after the relay drained`);
    const perSend = (ms: number) => Math.round((ms / sends) * 100) / 100;
    return {
      mode: `MsgDispatcher${pipelined ? " pipelined" : ""} + PgOutboxStore + KafkaDeliveryPort, batchSize ${batchSize}`,
      events: sent,
      seconds,
      eventsPerSecond: sent / seconds,
      sends,
      cpuMsPer1000,
      msPerSend: { pending: perSend(spent.pending), send: perSend(spent.send), markSent: perSend(spent.markSent), markSentAndRead: perSend(spent.markSentAndRead), other: perSend(Math.max(0, seconds * 1000 - spent.pending - spent.send - spent.markSent - spent.markSentAndRead)) },
    };
  } finally {
    await port.disconnect();
    await handle.db.schema.dropSchema(tag).ifExists().cascade().execute().catch(() => undefined);
    await handle.close();
    await deleteTopics([topic]);
  }
}

/** This process's CPU milliseconds (user + system) since `since`, per 1,000 events. */
function cpuPer1000(since: NodeJS.CpuUsage, events: number): number {
  const { user, system } = process.cpuUsage(since);
  return Math.round(((user + system) / 1000 / events) * 1000 * 10) / 10;
}

/** The records the dispatcher would send, built the same way (JSON value, the msgx headers). */
function records(events: readonly OutboxEventDraft[], topic: string): DeliveryRecord[] {
  return events.map((e, i) => ({
    topic,
    key: e.partitionKey,
    value: JSON.stringify(e.payload),
    headers: eventHeaders({ ...e, eventId: i + 1 }),
  }));
}

/** One untimed record per partition key range before the timer: metadata, connections, JIT. */
const warmUp = (topic: string): DeliveryRecord[] => Array.from({ length: 20 }, (_, i) => ({ topic, key: `warm-${i}`, value: "{}", headers: {} }));

/** No database: kafkajs with the port's producer settings, raw batches. */
async function rawKafka(events: readonly OutboxEventDraft[], batch: number): Promise<Result> {
  const topic = `msg_${runTag("relay_raw")}`;
  await createTopics([topic], PARTITIONS);
  const producer = kafkaClient("msgx-bench-raw").producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false, createPartitioner: kafkajs.Partitioners.DefaultPartitioner });
  try {
    await producer.connect();
    await producer.sendBatch({ acks: -1, topicMessages: [{ topic, messages: warmUp(topic).map((r) => ({ key: r.key, value: r.value })) }] });
    const recs = records(events, topic);
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    let sends = 0;
    for (let i = 0; i < recs.length; i += batch) {
      const part = recs.slice(i, i + batch);
      await producer.sendBatch({ acks: -1, topicMessages: [{ topic, messages: part.map((r) => ({ key: r.key, value: r.value, headers: { ...r.headers } })) }] });
      sends += 1;
    }
    const seconds = (performance.now() - t0) / 1000;
    return { mode: `kafkajs producer alone (same settings), raw batches of ${batch}, no database`, events: recs.length, seconds, eventsPerSecond: recs.length / seconds, sends, cpuMsPer1000: cpuPer1000(cpu0, recs.length) };
  } finally {
    await producer.disconnect();
    await deleteTopics([topic]);
  }
}

/** No database: `KafkaDeliveryPort.send` with batches. */
async function portOnly(events: readonly OutboxEventDraft[], batch: number): Promise<Result> {
  const topic = `msg_${runTag("relay_port")}`;
  await createTopics([topic], PARTITIONS);
  const port = new KafkaDeliveryPort({ brokers: URLS.brokers.split(","), clientId: "msgx-bench-port" });
  try {
    await port.connect();
    await port.send(warmUp(topic));
    const recs = records(events, topic);
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    let sends = 0;
    for (let i = 0; i < recs.length; i += batch) {
      await port.send(recs.slice(i, i + batch));
      sends += 1;
    }
    const seconds = (performance.now() - t0) / 1000;
    return { mode: `KafkaDeliveryPort.send alone, batches of ${batch}, no database`, events: recs.length, seconds, eventsPerSecond: recs.length / seconds, sends, cpuMsPer1000: cpuPer1000(cpu0, recs.length) };
  } finally {
    await port.disconnect();
    await deleteTopics([topic]);
  }
}

async function main(): Promise<void> {
  const events = drafts(EVENTS);
  const machine = machineInfo();
  console.log(`relay: ${EVENTS} events (${fmt(JSON.stringify(events[0]!.payload).length)} B payload) on ${FLIGHTS} keys, ${PARTITIONS} partitions; batchSize ${BATCH} vs 1 (on ${SINGLE_EVENTS}) vs raw kafkajs; pause ${PAUSE}; prepared statements ${PREPARED_STATEMENTS}`);
  console.log(`  machine: ${machine.nproc} CPUs, ${machine.memoryGiB} GiB, load ${machine.loadAverage1m}; PostgreSQL ${machine.postgres}, ${machine.kafka}`);
  const results: Result[] = [];
  const show = (r: Result) => (results.push(r), console.log(`  ${r.mode}: ${fmt(r.eventsPerSecond)} events/s (${r.events} in ${r.seconds.toFixed(2)} s, ${r.sends} sends)`), r);
  // The two no-database modes run first, each twice and interleaved (port, raw, raw, port): the
  // first producer in a process pays for JIT warm-up, and run order alone moved one of them by
  // ~30 %. Each keeps its faster run; the ceiling is the faster of the two.
  const best = (a: Result, b: Result) => (a.eventsPerSecond >= b.eventsPerSecond ? a : b);
  const portRuns = [await portOnly(events, BATCH)];
  const rawRuns = [await rawKafka(events, BATCH), await rawKafka(events, BATCH)];
  portRuns.push(await portOnly(events, BATCH));
  const port = show(best(portRuns[0]!, portRuns[1]!));
  const rawOnly = show(best(rawRuns[0]!, rawRuns[1]!));
  const raw = best(rawOnly, port);
  // One untimed pass of the relay itself first: the first relay in a process otherwise pays for
  // the JIT of the driver's row parsing and the new schema's first plans (~20–30 % in either order).
  await relay(events.slice(0, Math.min(2_000, EVENTS)), BATCH, true);
  // The pipelined relay runs twice too, around the sequential one, and keeps its faster run, as
  // the no-database modes do: one sample measured against the better of four is a comparison
  // the relay loses to the machine's noise alone.
  const batchedRuns = [await relay(events, BATCH, true)];
  const sequential = show(await relay(events, BATCH, false));
  batchedRuns.push(await relay(events, BATCH, true));
  const batched = show(best(batchedRuns[0]!, batchedRuns[1]!));
  console.log(`  (pipelined runs: ${batchedRuns.map((r) => fmt(r.eventsPerSecond)).join(" and ")} events/s; the faster is kept)`);
  // --single-events 0 leaves out the slow one-event-per-send mode.
  const single = SINGLE_EVENTS > 0 ? show(await relay(events.slice(0, SINGLE_EVENTS), 1, false)) : undefined;
  const ratios = {
    batchedOverSingle: single === undefined ? null : batched.eventsPerSecond / single.eventsPerSecond,
    batchedFractionOfRaw: batched.eventsPerSecond / raw.eventsPerSecond,
    pipelinedOverSequential: batched.eventsPerSecond / sequential.eventsPerSecond,
    sequentialFractionOfRaw: sequential.eventsPerSecond / raw.eventsPerSecond,
    portOverRaw: port.eventsPerSecond / rawOnly.eventsPerSecond,
    ceilingEventsPerSecond: raw.eventsPerSecond,
  };
  console.log();
  printTable(["mode", "events", "seconds", "events/s", "÷ ceiling", "CPU ms / 1000 ev"], results.map((r) => [r.mode, r.events, r.seconds.toFixed(2), r.eventsPerSecond, (r.eventsPerSecond / raw.eventsPerSecond).toFixed(2), r.cpuMsPer1000.toFixed(1)]));
  console.log();
  for (const [name, r] of [["pipelined, batchSize " + BATCH, batched], ["sequential, batchSize " + BATCH, sequential], ["sequential, batchSize 1", single]] as const) {
    if (r === undefined) continue;
    const m = r.msPerSend!;
    console.log(`  per step, ${name}: time inside pending ${m.pending} ms, send ${m.send} ms, markSent ${m.markSent} ms, markSentAndRead ${m.markSentAndRead} ms, other ${m.other} ms${r === batched ? " (pending, markSent and markSentAndRead overlap send here)" : ""}`);
  }
  if (ratios.batchedOverSingle !== null) console.log(`  batched relay ÷ one event per send: ${ratios.batchedOverSingle.toFixed(1)}×`);
  console.log(`  KafkaDeliveryPort.send ÷ raw kafkajs (the better of two runs each): ${ratios.portOverRaw.toFixed(2)}`);
  console.log(`  pipelined ÷ sequential (both batchSize ${BATCH}): ${ratios.pipelinedOverSequential.toFixed(2)}×`);
  console.log(`  ceiling (fastest no-database mode): ${fmt(raw.eventsPerSecond)} events/s`);
  console.log(`  batched relay as a fraction of the ceiling: ${ratios.batchedFractionOfRaw.toFixed(2)} (target ≥ 0.8: ${ratios.batchedFractionOfRaw >= 0.8 ? "met" : "NOT met"})`);
  const file = writeReport("relay", { events: EVENTS, singleEvents: SINGLE_EVENTS, batch: BATCH, pause: PAUSE, flights: FLIGHTS, partitions: PARTITIONS, machine, results, ratios });
  console.log(`  written ${file}`);
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
