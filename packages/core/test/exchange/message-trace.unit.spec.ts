import { describe, expect, it } from "vitest";
import { decodeMessage, EventHeader, mergeSchd, parseTraceparent, PipelineRouter, schdRecord, silentLogger, type OutboxEvent, type ProcessorTable, type Tracer } from "@msgx/core";
import { PipelineStep, SpanName } from "@msgx/core/testing";
import { InMemoryBroker, InMemoryMailbox, InMemoryOutboxStore, InMemoryPipelineStore, InMemoryTracer, ManualClock } from "@msgx/core/testing";

const flop = (seqn: number) =>
  `<MSG><META><SNDR>AODB</SNDR><SEQN>${seqn}</SEQN><DTTM>20260305020000</DTTM><TYPE>FLOP</TYPE><STYP>ESTT</STYP></META>` +
  `<FLOP><FLID>${900000 + seqn}</FLID><ESTT>05MAR261452</ESTT></FLOP></MSG>`;

/** Every FLOP writes two `KAFKA:msg` events: every event of a message must carry its trace. */
const processors: ProcessorTable = {
  flop: {
    flightsOf: (body) => body.blocks.map((b) => b.flid),
    apply: (_body, ctx) => ({
      type: "applied",
      flights: [],
      events: [1, 2].map((stateVersion) => ({ target: "KAFKA:msg", partitionKey: String(ctx.meta.seqn), eventType: "UPSERT" as const, stateVersion, payload: { seqn: ctx.meta.seqn }, sourceMsgId: ctx.msgId })),
    }),
  },
};

const CALLER = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
const CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const signal = new AbortController().signal;

function world(tracer?: Tracer) {
  const clock = new ManualClock();
  const mailbox = new InMemoryMailbox(clock);
  const store = new InMemoryPipelineStore(clock);
  const outbox = new InMemoryOutboxStore(store);
  const broker = new InMemoryBroker();
  const router = new PipelineRouter(
    { store, mailbox, outbox, delivery: broker, clock, logger: silentLogger, decode: (raw) => decodeMessage(raw), processors, ...(tracer ? { tracer } : {}) },
    { pollIntervalMs: 250 },
  );
  /** Intake, pump, delivery once each. */
  const drive = async () => {
    for (const step of [PipelineStep.INTAKE, PipelineStep.PUMP, PipelineStep.MSG_DELIVERY]) await router.run(step, signal);
  };
  const traceIds = () => ({
    events: store.tables.events.map((e) => parseTraceparent(e.traceparent)?.traceId ?? null),
    records: broker.records("msg").map((r) => parseTraceparent(r.headers[EventHeader.TRACEPARENT])?.traceId ?? null),
  });
  return { mailbox, store, broker, router, drive, traceIds };
}

describe("a message's trace", () => {
  it("continues the ingress request's traceparent: ingress → intake → process → deliver in one trace, on every event and record", async () => {
    const tracer = new InMemoryTracer();
    const w = world(tracer);
    const { msgId } = await w.router.receive(flop(1), { traceparent: CALLER });
    await w.drive();

    expect(w.traceIds()).toEqual({ events: [CALLER_TRACE, CALLER_TRACE], records: [CALLER_TRACE, CALLER_TRACE] });
    const [ingress, intake, process, ...deliver] = tracer.spans;
    expect([ingress, intake, process, ...deliver].map((s) => s!.name)).toEqual([SpanName.INGRESS, SpanName.INTAKE, SpanName.PROCESS, SpanName.DELIVER, SpanName.DELIVER]);
    expect(tracer.spans.every((s) => s.traceId === CALLER_TRACE && s.ended && s.error === null)).toBe(true);
    // A tree, not a list of siblings: each stage is the child of the one before.
    expect(ingress!.parentSpanId).toBe("00f067aa0ba902b7");
    expect(intake!.parentSpanId).toBe(ingress!.spanId);
    expect(process!.parentSpanId).toBe(intake!.spanId);
    expect(deliver.map((s) => s.parentSpanId)).toEqual([process!.spanId, process!.spanId]);
    expect(process!.attributes).toMatchObject({ "msgx.msg_id": msgId, "msgx.status": "SUCCEEDED" });
    // The record carries its delivery span, so a consumer's span hangs below the send.
    expect(w.broker.records("msg").map((r) => parseTraceparent(r.headers[EventHeader.TRACEPARENT])?.spanId)).toEqual(deliver.map((s) => s.spanId));
    // Each delivery span names where the broker put its record.
    expect(deliver.map((s) => [s.attributes["messaging.destination.partition.id"], s.attributes["messaging.kafka.offset"]])).toEqual([
      ["0", 0],
      ["0", 1],
    ]);
    // Stored with our processing record (the upstream mailbox has no column for it).
    expect(parseTraceparent((await w.store.get(msgId))?.traceparent)).toMatchObject({ traceId: CALLER_TRACE, spanId: intake!.spanId });
  });

  it("starts a new trace at intake for a message that came through the mailbox without the ingress", async () => {
    const tracer = new InMemoryTracer();
    const w = world(tracer);
    await w.mailbox.append(flop(2));
    await w.drive();

    const intake = tracer.named(SpanName.INTAKE);
    expect(intake).toHaveLength(1);
    expect(intake[0]!.parentSpanId).toBeNull();
    expect(tracer.named(SpanName.INGRESS)).toEqual([]);
    expect(w.traceIds()).toEqual({ events: [intake[0]!.traceId, intake[0]!.traceId], records: [intake[0]!.traceId, intake[0]!.traceId] });
  });

  it.each([
    ["garbage", "not-a-traceparent"],
    ["upper-case hex", CALLER.toUpperCase()],
    ["an all-zero trace id", `00-${"0".repeat(32)}-00f067aa0ba902b7-01`],
    ["an all-zero span id", `00-${CALLER_TRACE}-${"0".repeat(16)}-01`],
    ["version ff", `ff-${CALLER_TRACE}-00f067aa0ba902b7-01`],
    ["version 00 with a trailing field", `${CALLER}-extra`],
  ])("ignores an invalid traceparent (%s): a new trace at the ingress, the value never stored", async (_what, header) => {
    const tracer = new InMemoryTracer();
    const w = world(tracer);
    const { msgId } = await w.router.receive(flop(3), { traceparent: header });
    await w.drive();

    const [ingress] = tracer.named(SpanName.INGRESS);
    expect(ingress!.parentSpanId).toBeNull();
    expect(ingress!.traceId).not.toBe(CALLER_TRACE);
    expect(w.traceIds().events).toEqual([ingress!.traceId, ingress!.traceId]);
    const stored = [(await w.store.get(msgId))?.traceparent, ...w.store.tables.events.map((e) => e.traceparent)];
    expect(stored.every((t) => parseTraceparent(t) !== null && t !== header)).toBe(true);
  });

  it("passes the caller's trace on to the record with export off (no tracer), and adds none without one", async () => {
    const w = world();
    await w.router.receive(flop(4), { traceparent: CALLER });
    await w.router.receive(flop(5));
    await w.drive();
    expect(w.store.tables.events.map((e) => e.traceparent)).toEqual([CALLER, CALLER, null, null]);
    expect(w.broker.records("msg").map((r) => r.headers[EventHeader.TRACEPARENT])).toEqual([CALLER, CALLER, undefined, undefined]);
  });

  it("sends a merged schd record with the traceparent of the newest event it stands for", () => {
    const event = (eventId: number, stateVersion: number, traceparent: string | null): OutboxEvent => ({
      target: "KAFKA:schd", partitionKey: "F1", eventType: "UPSERT", stateVersion, payload: { v: stateVersion }, sourceMsgId: eventId,
      traceparent, eventId, status: "PENDING", attempts: 0, nextAttemptAt: null, lastError: null, createdAt: 0, sentAt: null,
    });
    const newest = `00-${"b".repeat(32)}-${"c".repeat(16)}-01`;
    const [group] = mergeSchd([event(2, 2, newest), event(1, 1, CALLER), event(3, 1, null)]);
    expect(schdRecord(group!.newest, "schd").headers[EventHeader.TRACEPARENT]).toBe(newest);
  });
});

describe("parseTraceparent", () => {
  it("reads a valid W3C traceparent and a later version's extra fields", () => {
    expect(parseTraceparent(CALLER)).toEqual({ traceId: CALLER_TRACE, spanId: "00f067aa0ba902b7", flags: "01" });
    expect(parseTraceparent(`01-${CALLER_TRACE}-00f067aa0ba902b7-00-what-comes-later`)).toEqual({ traceId: CALLER_TRACE, spanId: "00f067aa0ba902b7", flags: "00" });
    expect(parseTraceparent(undefined)).toBeNull();
  });

  it("continues the trace of a row appended elsewhere (the runner's ingress thread): its report starts the ingress span, hands the text over, wakes the intake", async () => {
    const tracer = new InMemoryTracer();
    const w = world(tracer);
    // The ingress thread's own connection wrote the row; the router only hears of it.
    const msgId = await w.mailbox.append(flop(2));
    const handed: number[] = [];
    const inner = w.mailbox as unknown as { appendedElsewhere?: (a: readonly { msgId: number }[]) => void };
    inner.appendedElsewhere = (appends) => void handed.push(...appends.map((a) => a.msgId));
    const wake = w.router.appendedElsewhere([{ msgId, text: flop(2), traceparent: CALLER, committedAt: 0 }]);
    expect(wake).toEqual(w.router.wakes("ingress"));
    expect(handed).toEqual([msgId]);
    await w.drive();
    expect(w.traceIds()).toEqual({ events: [CALLER_TRACE, CALLER_TRACE], records: [CALLER_TRACE, CALLER_TRACE] });
    const [ingress, intake] = tracer.spans;
    expect([ingress!.name, intake!.name]).toEqual([SpanName.INGRESS, SpanName.INTAKE]);
    expect(ingress!.attributes).toMatchObject({ "msgx.msg_id": msgId });
    expect(intake!.parentSpanId).toBe(ingress!.spanId);
  });
});
