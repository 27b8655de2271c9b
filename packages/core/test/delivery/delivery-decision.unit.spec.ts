import { describe, expect, it } from "vitest";
import { decideDeliveryFailure } from "../../src/delivery/delivery-decision.js";
import { isDue } from "../../src/outbox/due-prefix.js";
import { buildPrefix, DEFAULT_DELIVERY_TOPICS, msgRecord, schdRecord, topicFor } from "../../src/delivery/delivery-records.js";
import { sendLargestPrefix } from "../../src/delivery/send-prefix.js";
import { isMsgxError, isOutage } from "../../src/errors/msgx-error.js";
import { DeliveryStatus, EventType, Target, type OutboxEvent } from "../../src/outbox/outbox-event.js";
import type { DeliveryRecord } from "../../src/ports/delivery-port.js";
import { DEFAULT_RETRY_POLICY } from "../../src/runtime/retry-policy.js";
import { InMemoryBroker } from "../../src/ports/in-memory-broker.js";

const T0 = 1_000_000;
const event = (extra: Partial<OutboxEvent> = {}): OutboxEvent => ({
  eventId: 5,
  target: Target.MSG,
  partitionKey: "F1",
  eventType: EventType.UPSERT,
  stateVersion: 3,
  payload: { flid: "F1", gate: "A1" },
  sourceMsgId: 77,
  traceparent: null,
  status: DeliveryStatus.PENDING,
  attempts: 0,
  nextAttemptAt: null,
  lastError: null,
  createdAt: 0,
  sentAt: null,
  ...extra,
});

describe("decideDeliveryFailure", () => {
  it("backs off 1, 2, 4, 8 s and ends DEAD at the 5th failure (defaults)", () => {
    const seen = [0, 1, 2, 3, 4].map((before) => decideDeliveryFailure(before, T0, DEFAULT_RETRY_POLICY));
    expect(seen).toEqual([
      { action: "retry", attempts: 1, nextAttemptAt: T0 + 1_000 },
      { action: "retry", attempts: 2, nextAttemptAt: T0 + 2_000 },
      { action: "retry", attempts: 3, nextAttemptAt: T0 + 4_000 },
      { action: "retry", attempts: 4, nextAttemptAt: T0 + 8_000 },
      { action: "dead", attempts: 5 },
    ]);
  });

  it("caps each backoff step and follows a configured policy", () => {
    const policy = { ...DEFAULT_RETRY_POLICY, maxAttempts: 10, initialBackoffMs: 10_000, maxBackoffMs: 60_000 };
    expect(decideDeliveryFailure(3, T0, policy)).toEqual({ action: "retry", attempts: 4, nextAttemptAt: T0 + 60_000 });
    expect(decideDeliveryFailure(9, T0, policy)).toEqual({ action: "dead", attempts: 10 });
  });

  it("isDue: null or not after now", () => {
    expect([isDue(null, T0), isDue(T0, T0), isDue(T0 + 1, T0)]).toEqual([true, true, false]);
  });
});

describe("delivery records", () => {
  it("msg: topic, key FLID, JSON value and the core headers; null payload gives a null value", () => {
    expect(msgRecord(event(), "msg")).toEqual({
      topic: "msg",
      key: "F1",
      value: '{"flid":"F1","gate":"A1"}',
      headers: { "msgx-event-id": "5", "msgx-event-type": "UPSERT", "msgx-state-version": "3", "msgx-source-msg-id": "77" },
    });
    expect(msgRecord(event({ eventType: EventType.TOMBSTONE, payload: null }), "msg").value).toBeNull();
    expect(msgRecord(event({ eventType: EventType.TOMBSTONE, payload: { deleted: true } }), "msg").value).toBe('{"deleted":true}');
  });

  it("schd: the full state, or a null-value tombstone whatever the payload", () => {
    expect(schdRecord(event({ target: Target.SCHD }), "schd").value).toBe('{"flid":"F1","gate":"A1"}');
    expect(schdRecord(event({ target: Target.SCHD, eventType: EventType.TOMBSTONE, payload: { x: 1 } }), "schd").value).toBeNull();
  });

  it("sends the stored JSON text when the store gave one, without reading the payload", () => {
    const stored = (over: Partial<OutboxEvent>): OutboxEvent =>
      Object.defineProperty({ ...event(over), payloadJson: '{"gate":"A1","flid":"F1"}' }, "payload", {
        get: () => {
          throw new Error("payload read");
        },
      });
    expect(msgRecord(stored({}), "msg").value).toBe('{"gate":"A1","flid":"F1"}');
    expect(schdRecord(stored({ target: Target.SCHD }), "schd").value).toBe('{"gate":"A1","flid":"F1"}');
    expect(schdRecord(stored({ target: Target.SCHD, eventType: EventType.TOMBSTONE }), "schd").value).toBeNull();
  });

  it("a payload with no JSON form is a non-retriable fault of that event", () => {
    const err = (() => {
      try {
        msgRecord(event({ payload: { n: 1n } }), "msg");
      } catch (e) {
        return e;
      }
    })();
    expect(isMsgxError(err) && err.kind === "INFRA" && !err.retriable).toBe(true);
    const built = buildPrefix([event(), event({ eventId: 6, payload: { n: 2n } }), event({ eventId: 7 })], (e) => msgRecord(e, "msg"));
    expect(built.records.map((r) => r.headers["msgx-event-id"])).toEqual(["5"]);
    expect(isMsgxError(built.fault)).toBe(true);
  });

  it("topicFor: the configured topic, CONFIG when missing", () => {
    expect(topicFor(DEFAULT_DELIVERY_TOPICS, Target.MSG)).toBe("msg");
    expect(topicFor(DEFAULT_DELIVERY_TOPICS, Target.SCHD)).toBe("schd");
    expect(topicFor(DEFAULT_DELIVERY_TOPICS, Target.REF)).toBe("ref");
    expect(() => topicFor(DEFAULT_DELIVERY_TOPICS, "KAFKA:other")).toThrow(expect.objectContaining({ kind: "CONFIG" }));
  });
});

describe("sendLargestPrefix", () => {
  const recs = (n: number): DeliveryRecord[] =>
    Array.from({ length: n }, (_, i) => ({ topic: "msg", key: `k${i}`, value: null, headers: { "msgx-event-id": String(i) } }));

  it("sends everything in one call when nothing fails", async () => {
    const b = new InMemoryBroker();
    const placements = Array.from({ length: 8 }, (_, offset) => ({ partition: 0, offset }));
    expect(await sendLargestPrefix(b, recs(8))).toEqual({ ok: true, sent: 8, placements });
    expect(b.calls).toBe(1);
  });

  it("halves down to a prefix ahead of a bad record", async () => {
    const b = new InMemoryBroker();
    b.failRecords((r) => r.key === "k5");
    // The failed call appended k0..k4 before k5 was refused: the prefix that succeeded comes after.
    const placements = [5, 6, 7, 8].map((offset) => ({ partition: 0, offset }));
    expect(await sendLargestPrefix(b, recs(8))).toEqual({ ok: true, sent: 4, placements });
    expect(b.calls).toBe(2);
  });

  it("reports the fault when even the first record fails", async () => {
    const b = new InMemoryBroker();
    b.failRecords((r) => r.key === "k0");
    const outcome = await sendLargestPrefix(b, recs(8));
    expect(outcome.ok).toBe(false);
    expect(b.calls).toBe(4); // 8, 4, 2, 1
  });

  it("rethrows an outage at once, without trying smaller", async () => {
    const b = new InMemoryBroker();
    b.faults.setDown(true);
    await expect(sendLargestPrefix(b, recs(8))).rejects.toSatisfy(isOutage);
    expect(b.calls).toBe(1);
  });
});
