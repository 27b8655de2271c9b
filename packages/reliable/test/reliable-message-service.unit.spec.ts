import { describe, expect, it } from "vitest";
import { isMsgxError } from "@msgx/core";
import { EventHeader } from "@msgx/core";
import { RELIABLE_MESSAGE_ENVELOPE_SCHEMA } from "../src/message-envelope.js";
import { isReliableMessageError, type ReliableMessageErrorCode } from "../src/reliable-message-error.js";
import { clampPageSize } from "../src/reliable-message-service.js";
import type { ReliableMessageDraft } from "../src/reliable-message.js";
import { RmWorld } from "./rm-world.js";

const draft = (id: string, extra: Partial<ReliableMessageDraft> = {}): ReliableMessageDraft => ({
  messageId: id,
  body: JSON.stringify({ orderNo: id }),
  consumerQueue: "accounting",
  dataType: "voucher",
  field1: `BANK-${id}`,
  ...extra,
});

async function refusal(p: Promise<unknown>): Promise<ReliableMessageErrorCode | "resolved" | "other"> {
  try {
    await p;
    return "resolved";
  } catch (e) {
    return isReliableMessageError(e) ? e.code : "other";
  }
}

describe("ReliableMessageService", () => {
  it("acknowledgeMany: an empty id is refused for itself alone; the others are acknowledged in one store transaction", async () => {
    const w = new RmWorld();
    await w.service.saveAndSend(draft("A-1"));
    let batches = 0;
    const commitMany = w.store.commitMany.bind(w.store);
    w.store.commitMany = async (writes) => {
      batches += 1;
      return commitMany(writes);
    };
    const results = await w.service.acknowledgeMany(["", "A-1"]);
    expect(results.map((r) => ("error" in r ? r.error.code : r.outcome.applied))).toEqual(["INVALID_MESSAGE", true]);
    expect(batches).toBe(1);
  });

  it("prepare stores WAITING_CONFIRM and sends nothing; the same prepare again is a no-op, other content is refused", async () => {
    const w = new RmWorld();
    const m = await w.service.saveWaitingConfirm(draft("M-1"));
    expect(m).toMatchObject({ messageId: "M-1", status: "WAITING_CONFIRM", sendCount: 0, dead: false, version: 1, field1: "BANK-M-1" });
    expect(await w.service.saveWaitingConfirm(draft("M-1"))).toEqual(m);
    expect(await refusal(w.service.saveWaitingConfirm(draft("M-1", { body: "other" })))).toBe("ALREADY_EXISTS");
    expect(await refusal(w.service.saveWaitingConfirm(draft("M-2", { consumerQueue: "" })))).toBe("INVALID_MESSAGE");
    expect(w.db.tables.events).toEqual([]);
  });

  it("confirm moves to SENDING with one outbox row; the relay delivers it keyed by message id to the queue's topic", async () => {
    const w = new RmWorld();
    await w.service.saveWaitingConfirm(draft("M-1"));
    w.clock.advance(500);
    const outcome = await w.service.confirmAndSend("M-1");
    expect(outcome).toMatchObject({ applied: true, event: "confirmed", message: { status: "SENDING", sendCount: 1, confirmedAt: w.clock.now() } });
    expect(w.db.tables.events.map((e) => [e.eventId, e.target, e.partitionKey, e.stateVersion])).toEqual([[outcome.eventId, "KAFKA:rmq.accounting", "M-1", 1]]);
    expect((await w.service.confirmAndSend("M-1")).applied).toBe(false);
    expect(w.db.tables.events).toHaveLength(1);
    await w.deliverAll();
    const [record] = w.broker.records("rmq.accounting");
    expect(record!.key).toBe("M-1");
    expect(record!.headers[EventHeader.EVENT_ID]).toBe(String(outcome.eventId));
    expect(JSON.parse(record!.value!)).toEqual({
      schema: RELIABLE_MESSAGE_ENVELOPE_SCHEMA,
      messageId: "M-1",
      consumerQueue: "accounting",
      dataType: "voucher",
      body: JSON.stringify({ orderNo: "M-1" }),
      sendCount: 1,
      field1: "BANK-M-1",
      field2: null,
      field3: null,
      headers: null,
      key: null,
      createdAt: w.clock.now() - 500,
      sentAt: w.clock.now(),
    });
    expect(await refusal(w.service.confirmAndSend("nope"))).toBe("NOT_FOUND");
  });

  it("a lost confirm answer: it committed, the retry is a no-op, one send in all", async () => {
    const w = new RmWorld();
    await w.service.saveWaitingConfirm(draft("M-1"));
    w.store.commitUnknownNext = true;
    await expect(w.service.confirmAndSend("M-1")).rejects.toSatisfy((e: unknown) => isMsgxError(e) && e.kind === "COMMIT_UNKNOWN");
    expect((await w.service.confirmAndSend("M-1")).applied).toBe(false);
    expect(w.db.tables.events).toHaveLength(1);
  });

  it("a store outage writes nothing: neither the status nor the send", async () => {
    const w = new RmWorld();
    await w.service.saveWaitingConfirm(draft("M-1"));
    w.db.faults.failNext("rm.commit", 1, "DEPENDENCY_UNAVAILABLE");
    await expect(w.service.confirmAndSend("M-1")).rejects.toSatisfy(isMsgxError);
    expect((await w.service.get("M-1"))!.status).toBe("WAITING_CONFIRM");
    expect(w.db.tables.events).toEqual([]);
  });

  it("producer confirm and check-back confirm racing: one send", async () => {
    const w = new RmWorld();
    await w.service.saveWaitingConfirm(draft("M-1"));
    const results = await Promise.all([
      w.service.confirmAndSend("M-1"),
      w.service.execute("M-1", { type: "confirm", by: "check-back" }),
      w.service.confirmAndSend("M-1"),
    ]);
    expect(results.filter((r) => r.applied)).toHaveLength(1);
    expect(w.db.tables.events).toHaveLength(1);
  });

  it("cancel ends a prepared message CANCELLED unsent; again is a no-op; confirm after it is a CONFLICT; a confirmed one cannot be cancelled", async () => {
    const w = new RmWorld();
    await w.service.saveWaitingConfirm(draft("M-1"));
    expect((await w.service.cancel("M-1")).applied).toBe(true);
    expect(await w.service.get("M-1")).toMatchObject({ status: "CANCELLED", nextCheckAt: null, sendCount: 0 });
    expect((await w.service.cancel("M-1")).applied).toBe(false);
    expect(await refusal(w.service.confirmAndSend("M-1"))).toBe("CONFLICT");
    expect(await refusal(w.service.saveWaitingConfirm(draft("M-1")))).toBe("ALREADY_EXISTS");
    expect(await refusal(w.service.cancel("nope"))).toBe("NOT_FOUND");
    await w.service.saveAndSend(draft("M-2"));
    expect(await refusal(w.service.cancel("M-2"))).toBe("ILLEGAL_STATE");
    expect(w.db.tables.events).toHaveLength(1);
  });

  it("acknowledge ends a sent message ACKNOWLEDGED; the id is refused for a new prepare until the retention purge frees it", async () => {
    const w = new RmWorld();
    await w.service.saveAndSend(draft("M-1"));
    expect((await w.service.acknowledge("M-1")).message).toMatchObject({ status: "ACKNOWLEDGED", nextCheckAt: null });
    expect((await w.service.acknowledge("M-1")).applied).toBe(false);
    expect((await w.service.confirmAndSend("M-1")).applied).toBe(false);
    expect(await refusal(w.service.saveWaitingConfirm(draft("M-1")))).toBe("ALREADY_EXISTS");
    expect(await refusal(w.service.saveAndSend(draft("M-1")))).toBe("ALREADY_EXISTS");
    expect(await refusal(w.service.resendByMessageId("M-1"))).toBe("ILLEGAL_STATE");
    expect(await refusal(w.service.acknowledge("nope"))).toBe("NOT_FOUND");
    await w.service.saveWaitingConfirm(draft("W-1"));
    await w.service.cancel("W-1");
    w.clock.advance(7 * 24 * 3_600_000);
    await w.service.saveWaitingConfirm(draft("W-live"));
    expect(await w.service.countByPhase()).toEqual({ WAITING_CONFIRM: 1, REVIEW: 0, SENDING: 0, DEAD: 0, ACKNOWLEDGED: 1, CANCELLED: 1 });
    expect(await w.service.purgeFinished(w.clock.now() - 24 * 3_600_000, 1)).toBe(1);
    expect(await w.service.purgeFinished(w.clock.now() - 24 * 3_600_000, 10)).toBe(1);
    expect(await w.service.purgeFinished(w.clock.now(), 10)).toBe(0);
    expect(await w.service.get("W-live")).toBeDefined();
    // After the purge the id is a new message.
    expect(await w.service.saveWaitingConfirm(draft("M-1"))).toMatchObject({ status: "WAITING_CONFIRM", version: 1, sendCount: 0 });
  });

  it("headers and the per-message check delay are stored, compared on a retried prepare and delivered in the envelope", async () => {
    const w = new RmWorld();
    const d = draft("M-1", { headers: { tenant: "acme", "trace-id": "t-1" }, checkDelayMs: 5_000 });
    const m = await w.service.saveWaitingConfirm(d);
    expect(m).toMatchObject({ headers: { tenant: "acme", "trace-id": "t-1" }, checkDelayMs: 5_000, nextCheckAt: w.clock.now() + 5_000 });
    expect(await w.service.saveWaitingConfirm({ ...d, headers: { "trace-id": "t-1", tenant: "acme" } })).toEqual(m);
    expect(await refusal(w.service.saveWaitingConfirm({ ...d, headers: { tenant: "other" } }))).toBe("ALREADY_EXISTS");
    expect(await refusal(w.service.saveWaitingConfirm({ ...d, checkDelayMs: 6_000 }))).toBe("ALREADY_EXISTS");
    expect(await refusal(w.service.saveWaitingConfirm(draft("M-2", { headers: { k: 5 as unknown as string } })))).toBe("INVALID_MESSAGE");
    await w.service.confirmAndSend("M-1");
    await w.deliverAll();
    expect(w.values("accounting")).toEqual([expect.objectContaining({ messageId: "M-1", headers: { tenant: "acme", "trace-id": "t-1" } })]);
  });

  it("reject: redelivered after the reject wait without spending a send, dead and dead-lettered at maxRejects, replayed by the operator", async () => {
    const w = new RmWorld(["accounting"], { maxRejects: 3, rejectWaitsMs: [1_000, 5_000], maxSends: 2 });
    await w.service.saveAndSend(draft("M-1"));
    await w.deliverAll();
    expect(await refusal(w.service.reject("nope", "x"))).toBe("NOT_FOUND");
    await w.service.saveWaitingConfirm(draft("W-1"));
    expect(await refusal(w.service.reject("W-1", "x"))).toBe("ILLEGAL_STATE");
    expect(await refusal(w.service.reject("M-1", 5 as unknown as string))).toBe("INVALID_MESSAGE");
    for (const [i, wait] of [[1, 1_000], [2, 5_000]] as const) {
      expect((await w.service.reject("M-1", `handler failed ${i}`)).message).toMatchObject({ rejectCount: i, lastError: `handler failed ${i}` });
      expect((await w.service.reject("M-1", "duplicate delivery")).applied).toBe(false);
      w.clock.advance(wait - 1);
      expect((await w.recovery.step()).redelivered).toBe(0);
      w.clock.advance(1);
      expect(await w.recovery.step()).toMatchObject({ redelivered: 1, resent: 0, dead: 0 });
      await w.deliverAll();
    }
    expect((await w.service.get("M-1"))!).toMatchObject({ sendCount: 3, rejectCount: 2, dead: false });
    const last = await w.service.reject("M-1", "x".repeat(5_000));
    expect(last.event).toBe("rejected");
    expect(last.message).toMatchObject({ dead: true, rejectCount: 3, lastError: "x".repeat(1_000) });
    await w.deliverAll();
    const [letter] = w.deadLetters("accounting") as Record<string, unknown>[];
    expect(letter).toMatchObject({ messageId: "M-1", sendCount: 3, deadReason: "x".repeat(1_000), schema: RELIABLE_MESSAGE_ENVELOPE_SCHEMA });
    expect(w.broker.records("rmq-dlq.accounting")[0]!.key).toBe("M-1");
    expect((await w.service.reject("M-1", "late")).applied).toBe(false);
    // Replay: back to SENDING on the main topic, reject budget reset.
    expect(await w.service.resendAllDeadByQueue("accounting")).toMatchObject({ resent: 1 });
    expect((await w.service.get("M-1"))!).toMatchObject({ dead: false, rejectCount: 0, sendCount: 4 });
    await w.deliverAll();
    expect((w.values("accounting") as { sendCount: number }[]).map((v) => v.sendCount)).toEqual([1, 2, 3, 4]);
    expect((await w.service.acknowledge("M-1")).message!.status).toBe("ACKNOWLEDGED");
  });

  it("every transition into DEAD writes one dead-letter row in the same commit: operator mark-dead", async () => {
    const w = new RmWorld();
    await w.service.saveAndSend(draft("M-1"));
    await w.service.markDead("M-1");
    await w.service.markDead("M-1");
    const rows = w.db.tables.events.filter((e) => e.target === "KAFKA:rmq-dlq.accounting");
    expect(rows).toHaveLength(1);
    expect(rows[0]!.payload).toMatchObject({ messageId: "M-1", deadReason: "marked dead by an operator" });
    await w.service.saveAndSend(draft("M-2"));
    w.db.faults.failNext("rm.commit", 1, "DEPENDENCY_UNAVAILABLE");
    await expect(w.service.markDead("M-2")).rejects.toSatisfy(isMsgxError);
    expect(w.db.tables.events.filter((e) => e.target === "KAFKA:rmq-dlq.accounting")).toHaveLength(1);
    expect((await w.service.get("M-2"))!.dead).toBe(false);
  });

  it("save-and-send stores SENDING and sends once, idempotently", async () => {
    const w = new RmWorld();
    const first = await w.service.saveAndSend(draft("M-1"));
    expect(first.message).toMatchObject({ status: "SENDING", sendCount: 1, confirmedAt: w.clock.now() });
    expect((await w.service.saveAndSend(draft("M-1"))).applied).toBe(false);
    expect(w.db.tables.events).toHaveLength(1);
    await w.service.saveWaitingConfirm(draft("M-2"));
    expect(await refusal(w.service.saveAndSend(draft("M-2")))).toBe("ALREADY_EXISTS");
  });

  it("direct send writes a send and stores nothing; its acknowledgement finds nothing (NOT_FOUND)", async () => {
    const w = new RmWorld();
    const { eventId } = await w.service.directSend(draft("D-1"));
    expect(await w.service.get("D-1")).toBeUndefined();
    expect(w.db.tables.events.map((e) => [e.eventId, e.partitionKey, e.stateVersion])).toEqual([[eventId, "D-1", 1]]);
    expect(await refusal(w.service.acknowledge("D-1"))).toBe("NOT_FOUND");
  });

  it("resend: a new outbox row with the same message id and the next send number; refused before confirmation", async () => {
    const w = new RmWorld();
    await w.service.saveAndSend(draft("M-1"));
    w.clock.advance(1_000);
    const m = (await w.service.get("M-1"))!;
    const r1 = await w.service.resend(m);
    const r2 = await w.service.resendByMessageId("M-1");
    expect([r1.message!.sendCount, r2.message!.sendCount]).toEqual([2, 3]);
    await w.deliverAll();
    const values = w.values("accounting") as { messageId: string; sendCount: number }[];
    expect(values.map((v) => [v.messageId, v.sendCount])).toEqual([["M-1", 1], ["M-1", 2], ["M-1", 3]]);
    expect(new Set(w.broker.records("rmq.accounting").map((r) => r.headers[EventHeader.EVENT_ID])).size).toBe(3);
    await w.service.saveWaitingConfirm(draft("M-2"));
    expect(await refusal(w.service.resendByMessageId("M-2"))).toBe("ILLEGAL_STATE");
    expect(await refusal(w.service.resendByMessageId("M-3"))).toBe("NOT_FOUND");
  });

  it("mark dead, acknowledge and delete", async () => {
    const w = new RmWorld();
    await w.service.saveAndSend(draft("M-1"));
    expect((await w.service.markDead("M-1")).message).toMatchObject({ dead: true, nextCheckAt: null });
    expect((await w.service.markDead("M-1")).applied).toBe(false);
    expect((await w.service.acknowledge("M-1")).applied).toBe(true);
    expect((await w.service.acknowledge("M-1")).applied).toBe(false);
    await w.service.saveWaitingConfirm(draft("M-2"));
    expect(await refusal(w.service.markDead("M-2"))).toBe("ILLEGAL_STATE");
    expect(await refusal(w.service.acknowledge("M-2"))).toBe("ILLEGAL_STATE");
    expect((await w.service.deleteByMessageId("M-2")).applied).toBe(true);
    expect((await w.service.deleteByMessageId("M-2")).applied).toBe(false);
  });

  it("resends every dead message of one queue, in pages, and only those", async () => {
    const w = new RmWorld(["q1", "q2"]);
    for (let i = 0; i < 7; i++) {
      await w.service.saveAndSend(draft(`A-${i}`, { consumerQueue: "q1" }));
      await w.service.markDead(`A-${i}`);
    }
    await w.service.saveAndSend(draft("A-live", { consumerQueue: "q1" }));
    for (let i = 0; i < 2; i++) {
      await w.service.saveAndSend(draft(`B-${i}`, { consumerQueue: "q2" }));
      await w.service.markDead(`B-${i}`);
    }
    const before = w.db.tables.events.length;
    const result = await w.service.resendAllDeadByQueue("q1", 3);
    expect(result).toEqual({ resent: 7, skipped: 0, pages: 3 });
    const q1 = await w.service.listPage({ consumerQueue: "q1" }, 1, 100);
    expect(q1.items.every((m) => !m.dead)).toBe(true);
    expect(q1.items.filter((m) => m.sendCount === 2).map((m) => m.messageId).sort()).toEqual([0, 1, 2, 3, 4, 5, 6].map((i) => `A-${i}`));
    expect((await w.service.listPage({ consumerQueue: "q2", dead: true })).total).toBe(2);
    expect(w.db.tables.events.length - before).toBe(7);
    expect(await w.service.resendAllDeadByQueue("q1", 3)).toEqual({ resent: 0, skipped: 0, pages: 0 });
  });

  it("page sizes are clamped like the seed's, without its gaps", () => {
    expect([undefined, 0, -5, 1, 50, 100, 150, 5_000, 9_999].map(clampPageSize)).toEqual([1000, 1000, 1000, 1, 50, 100, 150, 5000, 5000]);
  });

  it("lists pages of messages with filters", async () => {
    const w = new RmWorld();
    for (let i = 0; i < 5; i++) {
      await w.service.saveWaitingConfirm(draft(`M-${i}`));
      w.clock.advance(10);
    }
    await w.service.confirmAndSend("M-3");
    const page = await w.service.listPage({ status: "WAITING_CONFIRM" }, 2, 2);
    expect(page).toMatchObject({ pageNum: 2, pageSize: 2, total: 4, totalPages: 2 });
    expect(page.items.map((m) => m.messageId)).toEqual(["M-2", "M-4"]);
  });
});
