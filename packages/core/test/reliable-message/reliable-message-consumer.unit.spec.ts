import { describe, expect, it } from "vitest";
import { describeConsumeLogContract } from "../../src/reliable-message/consume-log.contract.js";
import { SimulatedCrashMarker } from "../../src/runtime/simulated-crash.js";
import { InMemoryConsumeLog, type InMemoryConsumerTx } from "../../src/reliable-message/in-memory-consume-log.js";
import { envelopeOf, parseReliableMessageEnvelope, type ReliableMessageEnvelope } from "../../src/reliable-message/message-envelope.js";
import { ReliableMessageConsumer, type ConsumerFailpoint } from "../../src/reliable-message/reliable-message-consumer.js";
import { sampleReliableMessage } from "../../src/reliable-message/reliable-message-store.contract.js";
import { ManualClock } from "../../src/runtime/manual-clock.js";
import { RecordingLogger } from "./rm-world.js";

const value = (id: string, sendCount = 1, queue = "accounting"): string =>
  JSON.stringify(envelopeOf(sampleReliableMessage(id, { status: "SENDING", sendCount, lastSentAt: 5, consumerQueue: queue })));

/** A consumer with a ledger in its own (fake) database and a recorded acknowledgement channel. */
function setup(options: { failHandler?: number; failAck?: number; crashAt?: ConsumerFailpoint } = {}) {
  const log = new InMemoryConsumeLog();
  const ledger: string[] = [];
  const acks: { id: string; ledgerAtAck: number }[] = [];
  const logger = new RecordingLogger();
  let handlerFailures = options.failHandler ?? 0;
  let ackFailures = options.failAck ?? 0;
  let crashAt = options.crashAt ?? null;
  const handled: ReliableMessageEnvelope[] = [];
  const consumer = new ReliableMessageConsumer<InMemoryConsumerTx>({
    log,
    clock: new ManualClock(),
    logger,
    queue: "accounting",
    handler: async (m, tx) => {
      handled.push(m);
      tx.stage(() => ledger.push(m.messageId));
      if (handlerFailures > 0) {
        handlerFailures -= 1;
        throw new Error("ledger constraint");
      }
    },
    acknowledge: async (id) => {
      if (ackFailures > 0) {
        ackFailures -= 1;
        throw new Error("message service unreachable");
      }
      acks.push({ id, ledgerAtAck: ledger.length });
    },
    failpoint: (name) => {
      if (crashAt === name) {
        crashAt = null;
        throw new SimulatedCrashMarker(name);
      }
    },
  });
  return { log, ledger, acks, logger, consumer, handled };
}

describe("reliable-message consumer", () => {
  it("handles in its own transaction, records the claim, and acknowledges only after the commit", async () => {
    const s = setup();
    expect(await s.consumer.handle(value("M-1"))).toEqual({ kind: "consumed", messageId: "M-1", acknowledged: true });
    expect(s.ledger).toEqual(["M-1"]);
    expect(s.acks).toEqual([{ id: "M-1", ledgerAtAck: 1 }]);
    expect(s.log.entries.get("M-1")).toMatchObject({ messageId: "M-1", consumerQueue: "accounting", sendCount: 1 });
  });

  it("a redelivery or resend is a duplicate: not handled again, acknowledged again", async () => {
    const s = setup();
    await s.consumer.handle(value("M-1"));
    expect(await s.consumer.handle(value("M-1", 2))).toEqual({ kind: "duplicate", messageId: "M-1", acknowledged: true });
    expect(s.ledger).toEqual(["M-1"]);
    expect(s.acks.map((a) => a.id)).toEqual(["M-1", "M-1"]);
  });

  it("concurrent copies of one message: handled once", async () => {
    const s = setup();
    const outcomes = await Promise.all([s.consumer.handle(value("M-1")), s.consumer.handle(value("M-1", 2)), s.consumer.handle(value("M-1"))]);
    expect(outcomes.map((o) => o.kind).sort()).toEqual(["consumed", "duplicate", "duplicate"]);
    expect(s.ledger).toEqual(["M-1"]);
  });

  it("a failing handler rolls back everything, is rethrown, acknowledges nothing; the redelivery succeeds", async () => {
    const s = setup({ failHandler: 2 });
    await expect(s.consumer.handle(value("M-1"))).rejects.toThrow("ledger constraint");
    await expect(s.consumer.handle(value("M-1"))).rejects.toThrow("ledger constraint");
    expect(s.ledger).toEqual([]);
    expect(s.log.entries.size).toBe(0);
    expect(s.acks).toEqual([]);
    expect((await s.consumer.handle(value("M-1"))).kind).toBe("consumed");
    expect(s.ledger).toEqual(["M-1"]);
    expect(s.handled).toHaveLength(3);
  });

  it("a failed commit acknowledges nothing", async () => {
    const s = setup();
    s.log.faults.failNext("commit", 1, "DEPENDENCY_UNAVAILABLE");
    await expect(s.consumer.handle(value("M-1"))).rejects.toThrow(/consumer-db/);
    expect([s.ledger, s.acks]).toEqual([[], []]);
  });

  it("a failed acknowledgement is logged, not thrown: the effect stays, the next resend acknowledges", async () => {
    const s = setup({ failAck: 1 });
    expect(await s.consumer.handle(value("M-1"))).toEqual({ kind: "consumed", messageId: "M-1", acknowledged: false });
    expect(s.logger.at("warn")).toEqual(["reliable message consumed but not acknowledged; a resend will retry"]);
    expect(await s.consumer.handle(value("M-1", 2))).toEqual({ kind: "duplicate", messageId: "M-1", acknowledged: true });
    expect(s.ledger).toEqual(["M-1"]);
  });

  it("a crash between commit and acknowledgement: the redelivery is a duplicate and acknowledges", async () => {
    const s = setup({ crashAt: "consume.after-commit" });
    await expect(s.consumer.handle(value("M-1"))).rejects.toBeInstanceOf(SimulatedCrashMarker);
    expect([s.ledger, s.acks]).toEqual([["M-1"], []]);
    expect((await s.consumer.handle(value("M-1"))).kind).toBe("duplicate");
    expect(s.acks.map((a) => a.id)).toEqual(["M-1"]);
  });

  it("refuses what is not a version-1 envelope for its queue, without handling it", async () => {
    const s = setup();
    const bad = [null, "not json", "42", JSON.stringify({ schema: "other/9", messageId: "x" }), value("M-2", 1, "billing")];
    for (const v of bad) expect((await s.consumer.handle(v)).kind).toBe("invalid");
    const partial = JSON.parse(value("M-3")) as Record<string, unknown>;
    delete partial["sendCount"];
    expect(await s.consumer.handle(JSON.stringify(partial))).toEqual({ kind: "invalid", reason: "envelope field sendCount is missing or of the wrong type" });
    expect([s.handled, s.acks]).toEqual([[], []]);
  });

  it("an envelope reads back as written", () => {
    const envelope = envelopeOf(sampleReliableMessage("M-1", { status: "SENDING", sendCount: 3, lastSentAt: 9, body: "ü\n" }));
    expect(parseReliableMessageEnvelope(JSON.stringify(envelope))).toEqual({ ok: true, envelope });
  });
});

describeConsumeLogContract<InMemoryConsumerTx>("InMemoryConsumeLog", async () => {
  const log = new InMemoryConsumeLog();
  const rows: string[] = [];
  return {
    log,
    write: async (tx, key) => tx.stage(() => rows.push(key)),
    written: async () => [...rows].sort(),
    close: async () => undefined,
  };
});
