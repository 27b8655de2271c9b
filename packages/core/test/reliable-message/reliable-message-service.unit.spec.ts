import { describe, expect, it } from "vitest";
import { isMsgxError } from "../../src/errors/msgx-error.js";
import { EventHeader } from "../../src/outbox/event-headers.js";
import { RELIABLE_MESSAGE_ENVELOPE_SCHEMA } from "../../src/reliable-message/message-envelope.js";
import { isReliableMessageError, type ReliableMessageErrorCode } from "../../src/reliable-message/reliable-message-error.js";
import { clampPageSize } from "../../src/reliable-message/reliable-message-service.js";
import type { ReliableMessageDraft } from "../../src/reliable-message/reliable-message.js";
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

  it("cancel deletes a prepared message unsent; a confirmed one cannot be cancelled; a gone one is a no-op", async () => {
    const w = new RmWorld();
    await w.service.saveWaitingConfirm(draft("M-1"));
    expect((await w.service.cancel("M-1")).applied).toBe(true);
    expect(await w.service.get("M-1")).toBeUndefined();
    expect((await w.service.cancel("M-1")).applied).toBe(false);
    await w.service.saveAndSend(draft("M-2"));
    expect(await refusal(w.service.cancel("M-2"))).toBe("ILLEGAL_STATE");
    expect(w.db.tables.events).toHaveLength(1);
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

  it("direct send writes a send and stores nothing; its acknowledgement is a no-op", async () => {
    const w = new RmWorld();
    const { eventId } = await w.service.directSend(draft("D-1"));
    expect(await w.service.get("D-1")).toBeUndefined();
    expect(w.db.tables.events.map((e) => [e.eventId, e.partitionKey, e.stateVersion])).toEqual([[eventId, "D-1", 1]]);
    expect((await w.service.acknowledge("D-1")).applied).toBe(false);
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
