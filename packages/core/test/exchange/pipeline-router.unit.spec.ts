import { describe, expect, it } from "vitest";
import { decodeMessage, emptyRunDecision, PipelineRouter, readEventId, silentLogger, WAKE_EDGES, type BackfillResult, type Mailbox, type ProcessorTable } from "@msgx/core";
import { PipelineStep, type ProcessedStep } from "@msgx/core/testing";
import { type PipelineRouterOptions } from "@msgx/core";
import { InMemoryBroker, InMemoryMailbox, InMemoryOutboxStore, InMemoryPipelineStore, ManualClock } from "@msgx/core/testing";

const flop = (seqn: number) =>
  `<MSG><META><SNDR>AODB</SNDR><SEQN>${seqn}</SEQN><DTTM>20260305020000</DTTM><TYPE>FLOP</TYPE><STYP>ESTT</STYP></META>` +
  `<FLOP><FLID>${900000 + seqn}</FLID><ESTT>05MAR261452</ESTT></FLOP></MSG>`;

/** Every FLOP writes one `KAFKA:msg` event keyed by its SEQN. */
const processors: ProcessorTable = {
  flop: {
    flightsOf: (body) => body.blocks.map((b) => b.flid),
    apply: (_body, ctx) => ({
      type: "applied",
      flights: [],
      events: [{ target: "KAFKA:msg", partitionKey: String(ctx.meta.seqn), eventType: "UPSERT", stateVersion: 1, payload: { seqn: ctx.meta.seqn }, sourceMsgId: ctx.msgId }],
    }),
  },
};

/** Every FLOP writes one `KAFKA:msg` event, as `processors`, and its flight's state to `KAFKA:schd` (coalesced per FLID). */
const withSchd: ProcessorTable = {
  flop: {
    flightsOf: (body) => body.blocks.map((b) => b.flid),
    apply: (_body, ctx) => ({
      type: "applied",
      flights: [],
      events: [
        { target: "KAFKA:msg", partitionKey: String(ctx.meta.seqn), eventType: "UPSERT", stateVersion: 1, payload: { seqn: ctx.meta.seqn }, sourceMsgId: ctx.msgId },
        { target: "KAFKA:schd", partitionKey: String(900000 + ctx.meta.seqn), eventType: "UPSERT", stateVersion: 1, payload: { seqn: ctx.meta.seqn }, sourceMsgId: ctx.msgId },
      ],
    }),
  },
};

function world(options: Partial<PipelineRouterOptions> = {}, wrapMailbox: (m: Mailbox) => Mailbox = (m) => m, table: ProcessorTable = processors) {
  const clock = new ManualClock();
  const mailbox = new InMemoryMailbox(clock);
  const store = new InMemoryPipelineStore(clock);
  const outbox = new InMemoryOutboxStore(store);
  const broker = new InMemoryBroker();
  const processed: ProcessedStep[] = [];
  const router = new PipelineRouter(
    {
      store,
      mailbox: wrapMailbox(mailbox),
      outbox,
      delivery: broker,
      clock,
      logger: silentLogger,
      decode: (raw) => decodeMessage(raw),
      processors: table,
      onProcessed: (step) => processed.push(step),
    },
    { pollIntervalMs: 250, backfillSweepMs: 30_000, ...options },
  );
  return { clock, mailbox, store, outbox, broker, router, processed };
}

const signal = new AbortController().signal;

describe("PipelineRouter", () => {
  it("hands the pump's committed events to the msg relay, which sends them without reading them back; another writer's events (the generation moved on) are read, in order", async () => {
    const { router, store, outbox, broker } = world();
    const reads: number[] = [];
    const pending = outbox.pending.bind(outbox);
    outbox.pending = async (...args) => {
      const read = await pending(...args);
      reads.push(read.length);
      return read;
    };
    const through = async (seqn: number) => {
      await router.receive(flop(seqn));
      await router.run(PipelineStep.INTAKE, signal);
      await router.run(PipelineStep.PUMP, signal);
      await router.run(PipelineStep.MSG_DELIVERY, signal);
    };
    await through(1);
    expect(reads).toEqual([1]);
    await through(2);
    await through(3);
    expect(reads).toEqual([1]);
    // Another writer (a transaction: it moves the generation on) writes an event of the same target.
    await store.transaction((tx) => tx.applyRun({ ...emptyRunDecision, events: [{ target: "KAFKA:msg", partitionKey: "outside", eventType: "UPSERT", stateVersion: 1, payload: {}, sourceMsgId: 0 }] }));
    // The pump's next run loads its new flight at the new generation and commits: that run is not handed over.
    await through(4);
    expect(reads).toEqual([1, 2]);
    await through(5);
    expect(reads).toEqual([1, 2]);
    const keys = broker.records("msg").map((r) => r.key);
    expect(keys).toEqual(["1", "2", "3", "outside", "4", "5"]);
    const ids = broker.records("msg").map((r) => readEventId(r.headers));
    expect(ids).toEqual([...ids].sort((a, b) => a! - b!));
  });

  it("steps an idle pump again when its batched write-back falls due, not a poll interval later", async () => {
    const { router, mailbox, clock } = world({ pollIntervalMs: 1_000, pump: { backfill: { delayMs: 300, maxBatch: 500 } } });
    const received = await router.receive(flop(7));
    await router.run(PipelineStep.INTAKE, signal);
    expect(await router.run(PipelineStep.PUMP, signal)).toMatchObject({ after: 0 });
    // Nothing more to do; the write-back waits for its batch: the pump is to be stepped when it falls due.
    expect(await router.run(PipelineStep.PUMP, signal)).toEqual({ after: 300, wake: [] });
    expect(mailbox.rows.get(received.msgId)?.processedAt).toBeNull();
    clock.advance(300);
    expect(await router.run(PipelineStep.PUMP, signal)).toEqual({ after: 1_000, wake: [] });
    expect(mailbox.rows.get(received.msgId)?.processedAt).not.toBeNull();
  });

  it("routes one message from the ingress to the broker along the wake edges", async () => {
    const { router, broker, processed } = world();
    const received = await router.receive(flop(7));
    expect(received.wake).toEqual([PipelineStep.INTAKE]);

    const intake = await router.run(PipelineStep.INTAKE, signal);
    expect(intake.wake).toEqual([PipelineStep.PUMP]);
    expect(router.horizon).toBe(received.msgId);

    const pump = await router.run(PipelineStep.PUMP, signal);
    // Its events went to KAFKA:msg only: the ref-dispatcher has nothing to read.
    expect(pump).toEqual({ after: 0, wake: [PipelineStep.MSG_DELIVERY] });
    expect(processed.flatMap((p) => p.records.map((r) => [r.msgId, r.status]))).toEqual([[received.msgId, "SUCCEEDED"]]);

    await router.run(PipelineStep.MSG_DELIVERY, signal);
    expect(broker.records("msg").map((r) => r.key)).toEqual(["7"]);
    // Nothing left: the pump idles for the poll interval and wakes nobody.
    expect(await router.run(PipelineStep.PUMP, signal)).toEqual({ after: 250, wake: [] });
  });

  it("wakes no pump from an intake that found nothing, and asks again after the poll interval", async () => {
    const { router } = world();
    expect(await router.run(PipelineStep.INTAKE, signal)).toEqual({ after: 250, wake: [] });
  });

  it("an intake step that finds nothing new neither wakes the pump nor writes to the store", async () => {
    const { router, store } = world();
    const enqueues: number[] = [];
    const enqueue = store.enqueue.bind(store);
    store.enqueue = async (entries, intake) => (enqueues.push(entries.length), enqueue(entries, intake));
    await router.receive(flop(3));
    expect((await router.run(PipelineStep.INTAKE, signal)).wake).toEqual([PipelineStep.PUMP]);
    // The first step also re-scans behind the horizon (every `rescanEveryMs`), which enqueues again.
    const afterFirst = enqueues.length;
    expect(enqueues[0]).toBe(1);
    expect(await router.run(PipelineStep.INTAKE, signal)).toEqual({ after: 250, wake: [] });
    expect(enqueues).toHaveLength(afterFirst);
    await router.receive(flop(4));
    expect((await router.run(PipelineStep.INTAKE, signal)).wake).toEqual([PipelineStep.PUMP]);
    expect(enqueues.slice(afterFirst)).toEqual([1]);
  });

  it("a new intake wakes the pump at its first step when the stored horizon is above 0", async () => {
    const { router, store } = world();
    await store.enqueue([], { horizon: 5 });
    expect(await router.run(PipelineStep.INTAKE, signal)).toEqual({ after: 250, wake: [PipelineStep.PUMP] });
    expect(router.horizon).toBe(5);
  });

  it("a committed run wakes the dispatchers of the targets its events went to, and no other", async () => {
    const table: ProcessorTable = {
      flop: {
        flightsOf: () => [],
        apply: (_body, ctx) =>
          ctx.meta.seqn === 1
            ? { type: "skipped", reason: "no-flight:1" }
            : { type: "applied", flights: [], events: [{ target: "KAFKA:ref", partitionKey: "k", eventType: "UPSERT", stateVersion: 1, payload: {}, sourceMsgId: ctx.msgId }] },
      },
    };
    const { router } = world({}, (m) => m, table);
    await router.receive(flop(1));
    await router.run(PipelineStep.INTAKE, signal);
    expect(await router.run(PipelineStep.PUMP, signal)).toEqual({ after: 0, wake: [] });
    await router.receive(flop(2));
    await router.run(PipelineStep.INTAKE, signal);
    expect(await router.run(PipelineStep.PUMP, signal)).toEqual({ after: 0, wake: [PipelineStep.REF_DELIVERY] });
  });

  it("reports stopped: fenced when a newer leader holds the pipeline", async () => {
    const { router, store } = world({ pump: { fence: 1 } });
    store.tables.epoch = 1;
    await router.receive(flop(1));
    await router.run(PipelineStep.INTAKE, signal);
    store.tables.epoch = 2;
    expect(await router.run(PipelineStep.PUMP, signal)).toEqual({ after: 250, wake: [] });
    await expect(router.stopped).resolves.toBe("fenced");
  });

  it("reports a lost leadership as stopped", async () => {
    const { router } = world();
    router.leadershipLost("lease expired");
    await expect(router.stopped).resolves.toBe("leadership lost: lease expired");
  });

  it("settle waits for the pump's write-back to the mailbox", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const gated = (m: Mailbox): Mailbox => ({
      scan: (a, l, s) => m.scan(a, l, s),
      readRaw: (ids, s) => m.readRaw(ids, s),
      append: (raw, s) => m.append(raw, s),
      backfill: async (entries, s): Promise<BackfillResult> => {
        await gate;
        return m.backfill(entries, s);
      },
    });
    const { router, mailbox } = world({}, gated);
    const { msgId } = await router.receive(flop(3));
    await router.run(PipelineStep.INTAKE, signal);
    await router.run(PipelineStep.PUMP, signal);
    let settled = false;
    const settling = router.settle().then(() => (settled = true));
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    expect(mailbox.rows.get(msgId)?.processedAt).toBeNull();
    release();
    await settling;
    expect(mailbox.rows.get(msgId)?.processedAt).not.toBeNull();
  });

  it("settle flushes the coalesced schd events now, not at the next interval", async () => {
    const { router, broker } = world({ schd: { intervalMs: 60_000 } }, undefined, withSchd);
    const processOne = async (seqn: number) => {
      await router.receive(flop(seqn));
      await router.run(PipelineStep.INTAKE, signal);
      await router.run(PipelineStep.PUMP, signal);
    };
    await processOne(1);
    await router.run(PipelineStep.SCHD_FLUSHER, signal); // a fresh process flushes at once
    expect(broker.records("schd").map((r) => r.key)).toEqual(["900001"]);
    await processOne(2);
    await router.run(PipelineStep.SCHD_FLUSHER, signal); // the interval has not passed
    expect(broker.records("schd").map((r) => r.key)).toEqual(["900001"]);

    await router.settle();
    expect(broker.records("schd").map((r) => r.key)).toEqual(["900001", "900002"]);
  });

  it("settle sends nothing more once the runner must stop (leadership lost)", async () => {
    const { router, broker } = world({ schd: { intervalMs: 60_000 } }, undefined, withSchd);
    await router.receive(flop(1));
    await router.run(PipelineStep.INTAKE, signal);
    await router.run(PipelineStep.PUMP, signal);
    router.leadershipLost("lease expired");
    await router.settle();
    expect(broker.records("schd")).toEqual([]);
  });

  it("waits for a pump in outage until its breaker's probe, by the clock", async () => {
    const { router, store, clock } = world();
    await router.receive(flop(4));
    await router.run(PipelineStep.INTAKE, signal);
    store.faults.setDown(true);
    const outcome = await router.run(PipelineStep.PUMP, signal);
    expect(outcome.wake).toEqual([]);
    expect(outcome.after).toBeGreaterThan(0);
    clock.advance(outcome.after);
    store.faults.setDown(false);
    expect((await router.run(PipelineStep.PUMP, signal)).wake).toEqual([PipelineStep.MSG_DELIVERY]);
  });

  it("runs added steps by name, refuses a name twice and an unknown one", async () => {
    const { router } = world();
    router.add({ name: "history-sweep", run: async () => ({ after: 10, wake: router.wakes("outbox") }) });
    expect(router.names).toEqual([
      PipelineStep.MSG_DELIVERY,
      PipelineStep.REF_DELIVERY,
      PipelineStep.SCHD_FLUSHER,
      PipelineStep.PUMP,
      PipelineStep.INTAKE,
      PipelineStep.BACKFILL,
      "history-sweep",
    ]);
    expect((await router.run("history-sweep", signal)).wake).toEqual([PipelineStep.MSG_DELIVERY, PipelineStep.REF_DELIVERY, PipelineStep.SCHD_FLUSHER]);
    expect(() => router.add({ name: PipelineStep.PUMP, run: async () => ({ after: 0, wake: [] }) })).toThrow(RangeError);
    expect(() => router.run("nope", signal)).toThrow(RangeError);
  });

  it("wake edges name only the router's own steps", () => {
    const own = new Set<string>(Object.values(PipelineStep));
    for (const targets of Object.values(WAKE_EDGES)) for (const t of targets) expect(own.has(t)).toBe(true);
  });
});
