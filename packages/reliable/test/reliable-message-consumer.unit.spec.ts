import { describe, expect, it } from "vitest";
import { MsgxError } from "@msgx/core";
import { describeConsumeLogContract } from "../src/consume-log.contract.js";
import { SimulatedCrashMarker } from "@msgx/core";
import { InMemoryConsumeLog, type InMemoryConsumerTx } from "../src/in-memory-consume-log.js";
import { envelopeOf, parseReliableMessageEnvelope, type ReliableMessageEnvelope } from "../src/message-envelope.js";
import {
  MAX_REJECT_REASON_LENGTH,
  ReliableMessageConsumer,
  type ConsumerFailpoint,
  type ReliableMessageConsumerDeps,
} from "../src/reliable-message-consumer.js";
import { sampleReliableMessage } from "../src/reliable-message-store.contract.js";
import { ManualClock } from "@msgx/core/fakes";
import { RecordingLogger } from "./rm-world.js";

const value = (id: string, sendCount = 1, queue = "accounting"): string =>
  JSON.stringify(envelopeOf(sampleReliableMessage(id, { status: "SENDING", sendCount, lastSentAt: 5, consumerQueue: queue })));

interface SetupOptions {
  /** The handler throws on its first n calls (Infinity: always). */
  failHandler?: number;
  /** What the failing handler throws (default `Error("ledger constraint")`). */
  handlerError?: () => unknown;
  failAck?: number;
  crashAt?: ConsumerFailpoint;
  /** Configures `reject` (recorded); `failReject` fails its first n calls. */
  reject?: boolean;
  failReject?: number;
  budget?: Pick<ReliableMessageConsumerDeps<InMemoryConsumerTx>, "maxAttempts" | "retryWaitsMs">;
}

/** A consumer with a ledger in its own (fake) database and recorded acknowledgement and reject channels. */
function setup(options: SetupOptions = {}) {
  const log = new InMemoryConsumeLog();
  const clock = new ManualClock();
  const rejects: { id: string; reason: string }[] = [];
  let rejectFailures = options.failReject ?? 0;
  const ledger: string[] = [];
  const acks: { id: string; ledgerAtAck: number }[] = [];
  const logger = new RecordingLogger();
  let handlerFailures = options.failHandler ?? 0;
  let ackFailures = options.failAck ?? 0;
  let crashAt = options.crashAt ?? null;
  const handled: ReliableMessageEnvelope[] = [];
  const consumer = new ReliableMessageConsumer<InMemoryConsumerTx>({
    log,
    clock,
    logger,
    queue: "accounting",
    ...options.budget,
    handler: async (m, tx) => {
      handled.push(m);
      tx.stage(() => ledger.push(m.messageId));
      if (handlerFailures > 0) {
        handlerFailures -= 1;
        throw options.handlerError?.() ?? new Error("ledger constraint");
      }
    },
    ...(options.reject === true
      ? {
          reject: async (id: string, reason: string) => {
            if (rejectFailures > 0) {
              rejectFailures -= 1;
              throw new Error("message service unreachable");
            }
            rejects.push({ id, reason });
          },
        }
      : {}),
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
  return { log, clock, ledger, acks, rejects, logger, consumer, handled };
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

  it("refuses an envelope whose messageId or consumerQueue holds a NUL character before it claims: no stored text holds one, so the claim would fail on every redelivery", async () => {
    const s = setup();
    const withNul = (field: "messageId" | "consumerQueue") => {
      const envelope = JSON.parse(value("M-4")) as Record<string, unknown>;
      envelope[field] = `${String(envelope[field])}\u0000x`;
      return JSON.stringify(envelope);
    };
    expect(await s.consumer.handle(withNul("messageId"))).toEqual({ kind: "invalid", reason: "envelope field messageId holds a NUL character (\\u0000), which no stored text can hold" });
    // A consumer without a queue of its own would claim the envelope's consumerQueue.
    expect(await s.consumer.handle(withNul("consumerQueue"))).toEqual({ kind: "invalid", reason: "envelope field consumerQueue holds a NUL character (\\u0000), which no stored text can hold" });
    expect([s.ledger, s.handled, s.acks]).toEqual([[], [], []]);
    // Other control characters are storable and handled as any text.
    const tab = JSON.parse(value("M-5")) as Record<string, unknown>;
    tab["messageId"] = "M-5\tb";
    expect((await s.consumer.handle(JSON.stringify(tab))).kind).toBe("consumed");
  });

  describe("retry budget and reject", () => {
    it("a handler that always throws: retried after 200 ms and 1 s, then rejected with the last error; nothing handled or acknowledged", async () => {
      const s = setup({ reject: true, failHandler: Infinity });
      const t0 = s.clock.now();
      expect(await s.consumer.handle(value("M-1"))).toEqual({ kind: "retry", messageId: "M-1", attempt: 1, at: t0 + 200, reason: "Error: ledger constraint" });
      s.clock.advance(200);
      expect(await s.consumer.handle(value("M-1"), 2)).toEqual({ kind: "retry", messageId: "M-1", attempt: 2, at: t0 + 1_200, reason: "Error: ledger constraint" });
      s.clock.advance(1_000);
      const reason = "handler failed 3 times; last: Error: ledger constraint";
      expect(await s.consumer.handle(value("M-1"), 3)).toEqual({ kind: "rejected", messageId: "M-1", attempts: 3, reason });
      expect(s.rejects).toEqual([{ id: "M-1", reason }]);
      expect([s.handled.length, s.ledger, s.acks, s.log.entries.size]).toEqual([3, [], [], 0]);
      expect(s.logger.at("warn")).toEqual([
        "reliable message handler failed; will try again",
        "reliable message handler failed; will try again",
        "reliable message rejected: the handler failed past its budget",
      ]);
    });

    it("each try is its own transaction: a try that succeeds inside the budget consumes and acknowledges once, no reject", async () => {
      const s = setup({ reject: true, failHandler: 2 });
      expect((await s.consumer.handle(value("M-1"))).kind).toBe("retry");
      expect((await s.consumer.handle(value("M-1"), 2)).kind).toBe("retry");
      expect(s.log.entries.size).toBe(0);
      expect(await s.consumer.handle(value("M-1"), 3)).toEqual({ kind: "consumed", messageId: "M-1", acknowledged: true });
      expect([s.ledger, s.acks.map((a) => a.id), s.rejects]).toEqual([["M-1"], ["M-1"], []]);
    });

    it("maxAttempts and retryWaitsMs: the last wait repeats; maxAttempts 1 rejects on the first failure", async () => {
      const s = setup({ reject: true, failHandler: Infinity, budget: { maxAttempts: 5, retryWaitsMs: [10, 50] } });
      const t0 = s.clock.now();
      const waits: number[] = [];
      let attempt = 1;
      for (;;) {
        const o = await s.consumer.handle(value("M-1"), attempt);
        if (o.kind !== "retry") {
          expect(o).toMatchObject({ kind: "rejected", attempts: 5 });
          break;
        }
        waits.push(o.at - s.clock.now());
        attempt = o.attempt + 1;
      }
      expect([waits, s.clock.now()]).toEqual([[10, 50, 50, 50], t0]);
      const once = setup({ reject: true, failHandler: Infinity, budget: { maxAttempts: 1 } });
      expect(await once.consumer.handle(value("M-2"))).toEqual({
        kind: "rejected",
        messageId: "M-2",
        attempts: 1,
        reason: "handler failed 1 time; last: Error: ledger constraint",
      });
    });

    it("an attempt number past the budget rejects at once", async () => {
      const s = setup({ reject: true, failHandler: Infinity });
      expect(await s.consumer.handle(value("M-1"), 7)).toMatchObject({ kind: "rejected", attempts: 7 });
      expect(s.rejects.map((r) => r.id)).toEqual(["M-1"]);
    });

    it("a failed reject is logged and its error rethrown (the transport redelivers); the redelivery starts a new budget", async () => {
      const s = setup({ reject: true, failReject: 1, failHandler: Infinity, budget: { maxAttempts: 2 } });
      expect((await s.consumer.handle(value("M-1"))).kind).toBe("retry");
      await expect(s.consumer.handle(value("M-1"), 2)).rejects.toThrow("message service unreachable");
      expect(s.logger.at("error")).toEqual(["reliable message handler failed past its budget and the reject failed; the transport will redeliver"]);
      expect(s.rejects).toEqual([]);
      expect((await s.consumer.handle(value("M-1"))).kind).toBe("retry");
      expect(await s.consumer.handle(value("M-1"), 2)).toMatchObject({ kind: "rejected", attempts: 2 });
      expect(s.rejects.map((r) => r.id)).toEqual(["M-1"]);
    });

    it("another copy consumed between two tries: the next try is a duplicate, never a reject", async () => {
      const s = setup({ reject: true, failHandler: 1, budget: { maxAttempts: 2 } });
      expect((await s.consumer.handle(value("M-1"))).kind).toBe("retry");
      expect((await s.consumer.handle(value("M-1", 2))).kind).toBe("consumed");
      expect(await s.consumer.handle(value("M-1"), 2)).toEqual({ kind: "duplicate", messageId: "M-1", acknowledged: true });
      expect([s.ledger, s.rejects]).toEqual([["M-1"], []]);
    });

    it("an outage spends no try: a consume-log failure or a handler's DEPENDENCY_UNAVAILABLE is rethrown, even on the last try, and never rejected", async () => {
      const s = setup({ reject: true, failHandler: 1, handlerError: () => new MsgxError("DEPENDENCY_UNAVAILABLE", "ledger database is unavailable") });
      await expect(s.consumer.handle(value("M-1"), 3)).rejects.toThrow("ledger database is unavailable");
      s.log.faults.failNext("claim", 1, "DEPENDENCY_UNAVAILABLE");
      await expect(s.consumer.handle(value("M-1"), 3)).rejects.toThrow(/consumer-db/);
      s.log.faults.failNext("commit", 1, "INFRA");
      await expect(s.consumer.handle(value("M-1"), 3)).rejects.toThrow(/consumer-db/);
      expect([s.rejects, s.ledger]).toEqual([[], []]);
      expect(await s.consumer.handle(value("M-1"), 3)).toEqual({ kind: "consumed", messageId: "M-1", acknowledged: true });
    });

    it("a crash is never taken for a handler failure", async () => {
      const s = setup({ reject: true, failHandler: Infinity, handlerError: () => new SimulatedCrashMarker("inside handler") });
      await expect(s.consumer.handle(value("M-1"), 3)).rejects.toBeInstanceOf(SimulatedCrashMarker);
      expect(s.rejects).toEqual([]);
    });

    it("a long error message is cut in the reject reason", async () => {
      const s = setup({ reject: true, failHandler: Infinity, handlerError: () => new Error("x".repeat(5_000)), budget: { maxAttempts: 1 } });
      const o = await s.consumer.handle(value("M-1"));
      expect(o.kind === "rejected" && o.reason.length).toBe(MAX_REJECT_REASON_LENGTH);
      expect(s.rejects[0]?.reason.endsWith("x…")).toBe(true);
    });

    it("refuses a budget that is not one and an attempt number below 1", async () => {
      const base = { log: new InMemoryConsumeLog(), clock: new ManualClock(), handler: async () => undefined, acknowledge: async () => undefined };
      for (const maxAttempts of [0, 1.5, -1, Number.NaN]) expect(() => new ReliableMessageConsumer({ ...base, maxAttempts })).toThrow(TypeError);
      for (const retryWaitsMs of [[], [-1], [1, 0.5], [Number.POSITIVE_INFINITY]]) expect(() => new ReliableMessageConsumer({ ...base, retryWaitsMs })).toThrow(TypeError);
      await expect(new ReliableMessageConsumer(base).handle(value("M-1"), 0)).rejects.toThrow(TypeError);
    });
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
