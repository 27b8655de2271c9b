import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ManualClock } from "@msgx/core/fakes";
import type { OutboxEvent } from "@msgx/core";
import { ReliableMessageService } from "./reliable-message-service.js";
import { bindReliableMessageStore } from "./reliable-message-history.contract.js";
import type { ReliableMessageStore } from "./reliable-message-store.js";

const T0 = Date.UTC(2026, 2, 5, 8, 0, 0);

/** What `ReliableMessageStoreContractSubject` gives (its contract calls this one). */
interface Subject {
  readonly store: ReliableMessageStore;
  outboxRows(): Promise<readonly OutboxEvent[]>;
  close(): Promise<void>;
}
const SUBS = ["audit", "ledger", "mail"];

/**
 * The subscription deliveries of `ReliableMessageStore` (issue 36 item 1), through the service: the
 * fan-out of the first send, each subscription's own acknowledgement, reject, dead letter and
 * resend, and the message's completion in the transaction of the last acknowledgement.
 */
export function describeSubscriptionDeliveryContract(name: string, factory: () => Promise<Subject>): void {
  describe(`ReliableMessageStore contract (subscriptions): ${name}`, () => {
    let subject: Subject;
    let store: ReliableMessageStore;
    let clock: ManualClock;
    let service: ReliableMessageService;
    beforeEach(async () => {
      subject = await factory();
      store = subject.store;
      clock = new ManualClock(T0);
      service = new ReliableMessageService({ store, clock, options: { subscriptions: { accounting: SUBS }, maxRejects: 2, rejectWaitsMs: [1_000] } });
    });
    afterEach(async () => {
      await subject.close();
    });

    const sent = async (id: string) => {
      await service.saveWaitingConfirm({ messageId: id, body: "{}", consumerQueue: "accounting" });
      return service.confirmAndSend(id);
    };

    it("the first send fans out: one delivery and one send per subscription, on its own target, in the confirm's transaction", async () => {
      const confirmed = await sent("F-1");
      expect(confirmed.message).toMatchObject({ status: "SENDING", sendCount: 1, nextCheckAt: null, lastEventId: null });
      const rows = await subject.outboxRows();
      expect(rows.map((r) => r.target)).toEqual(SUBS.map((s) => `KAFKA:rmq-sub.accounting.${s}`));
      expect(rows.map((r) => (r.payload as { subscription?: string }).subscription)).toEqual(SUBS);
      const deliveries = await store.deliveries("F-1");
      expect(deliveries.map((d) => [d.subscription, d.status, d.sendCount, d.dead, d.lastEventId])).toEqual(SUBS.map((s, i) => [s, "SENDING", 1, false, rows[i]!.eventId]));
      expect(deliveries[0]).toMatchObject({ messageId: "F-1", nextCheckAt: T0 + 60_000, lastSentAt: T0, rejectCount: 0, rejectedAt: null, lastError: null, createdAt: T0, updatedAt: T0 });
      expect(await store.deliveries("NOPE")).toEqual([]);
    });

    it("the message is ACKNOWLEDGED only with the last subscription's acknowledgement; a repeat is a no-op", async () => {
      await sent("F-2");
      expect((await service.acknowledge("F-2", "ledger")).message?.status).toBe("SENDING");
      expect((await service.acknowledge("F-2", "ledger")).applied).toBe(false);
      expect((await service.acknowledge("F-2", "audit")).message?.status).toBe("SENDING");
      const last = await service.acknowledge("F-2", "mail");
      expect(last).toMatchObject({ applied: true, event: "acknowledged", message: { status: "ACKNOWLEDGED" }, delivery: { subscription: "mail", status: "ACKNOWLEDGED" } });
      expect((await store.get("F-2"))?.status).toBe("ACKNOWLEDGED");
      expect((await store.deliveries("F-2")).map((d) => d.status)).toEqual(["ACKNOWLEDGED", "ACKNOWLEDGED", "ACKNOWLEDGED"]);
      // Each delivery change is one entry of the message's history, its versions in order, naming the subscription.
      const history = await store.history("F-2");
      expect(history.map((h) => h.version)).toEqual(history.map((_, i) => i + 1));
      expect(history.slice(-3).map((h) => [h.event, h.detail?.split(":")[0], h.to])).toEqual([
        ["acknowledged", "subscription ledger", "SENDING"],
        ["acknowledged", "subscription audit", "SENDING"],
        ["acknowledged", "subscription mail", "ACKNOWLEDGED"],
      ]);
    });

    it("a call must name one of the message's subscriptions (INVALID_MESSAGE naming it); a queue without any refuses a name", async () => {
      await sent("F-3");
      await expect(service.acknowledge("F-3")).rejects.toMatchObject({ code: "INVALID_MESSAGE", message: expect.stringContaining("audit, ledger, mail") });
      await expect(service.acknowledge("F-3", "billing")).rejects.toMatchObject({ code: "INVALID_MESSAGE", message: expect.stringContaining('"billing"') });
      await expect(service.acknowledgeMany(["F-3"])).resolves.toMatchObject([{ messageId: "F-3", error: { code: "INVALID_MESSAGE" } }]);
      await service.saveAndSend({ messageId: "P-1", body: "{}", consumerQueue: "payments" });
      await expect(service.acknowledge("P-1", "ledger")).rejects.toMatchObject({ code: "INVALID_MESSAGE", message: expect.stringContaining("no subscriptions") });
      expect((await service.acknowledge("P-1")).message?.status).toBe("ACKNOWLEDGED");
      expect(await store.deliveries("P-1")).toEqual([]);
    });

    it("a subscription's reject, dead letter and resend are its own: the others' deliveries and the message do not move", async () => {
      await sent("F-4");
      const before = (await subject.outboxRows()).length;
      expect((await service.reject("F-4", "slow ledger", "ledger")).delivery).toMatchObject({ rejectCount: 1, rejectedAt: T0, nextCheckAt: T0 + 1_000, dead: false });
      clock.advance(1_000);
      expect(await store.dueDeliveries(clock.now(), 10)).toMatchObject([{ messageId: "F-4", subscription: "ledger" }]);
      expect((await service.executeSubscription("F-4", "ledger", { type: "recover" })).event).toBe("redelivered");
      expect((await service.reject("F-4", "still failing", "ledger")).delivery).toMatchObject({ dead: true, rejectCount: 2, nextCheckAt: null, lastError: "still failing" });
      const rows = (await subject.outboxRows()).slice(before);
      expect(rows.map((r) => [r.target, (r.payload as { subscription?: string }).subscription])).toEqual([
        ["KAFKA:rmq-sub.accounting.ledger", "ledger"],
        ["KAFKA:rmq-dlq.accounting", "ledger"],
      ]);
      expect((rows[1]!.payload as { deadReason: string }).deadReason).toBe("still failing");
      const others = (await store.deliveries("F-4")).filter((d) => d.subscription !== "ledger");
      expect(others.map((d) => [d.sendCount, d.rejectCount, d.dead])).toEqual([[1, 0, false], [1, 0, false]]);
      const resent = await service.resendByMessageId("F-4", "ledger");
      expect(resent.delivery).toMatchObject({ dead: false, rejectCount: 0, sendCount: 3, lastEventId: resent.eventId });
      expect((await store.get("F-4"))?.status).toBe("SENDING");
      await expect(service.markDead("F-4", "operator", "nope")).rejects.toMatchObject({ code: "INVALID_MESSAGE" });
      expect((await service.markDead("F-4", "operator", "mail")).delivery).toMatchObject({ dead: true, lastError: "operator" });
      // A late acknowledgement of a dead subscription counts.
      for (const s of SUBS) await service.acknowledge("F-4", s);
      expect((await store.get("F-4"))?.status).toBe("ACKNOWLEDGED");
    });

    it("scanDeadDeliveries: the queue's DEAD deliveries by message id then subscription, keyset; the bulk replay resends them to their subscription only", async () => {
      for (const id of ["D-2", "D-1"]) {
        await sent(id);
        for (const sub of ["mail", "audit"]) await service.markDead(id, "down", sub);
      }
      await service.saveAndSend({ messageId: "P-9", body: "{}", consumerQueue: "payments" });
      const all = await store.scanDeadDeliveries("accounting", null, 10);
      expect(all.map((d) => [d.messageId, d.subscription])).toEqual([["D-1", "audit"], ["D-1", "mail"], ["D-2", "audit"], ["D-2", "mail"]]);
      expect((await store.scanDeadDeliveries("accounting", { messageId: "D-1", subscription: "mail" }, 1)).map((d) => [d.messageId, d.subscription])).toEqual([["D-2", "audit"]]);
      expect(await store.scanDeadDeliveries("payments", null, 10)).toEqual([]);
      const before = (await subject.outboxRows()).length;
      expect(await service.resendAllDeadByQueue("accounting", 3)).toEqual({ resent: 4, skipped: 0, pages: 2 });
      expect((await subject.outboxRows()).slice(before).map((r) => r.target).sort()).toEqual(["audit", "audit", "mail", "mail"].map((s) => `KAFKA:rmq-sub.accounting.${s}`));
      expect(await store.scanDeadDeliveries("accounting", null, 10)).toEqual([]);
    });

    it("countDeliveries: each queue's subscriptions by delivery phase, zeros included, by queue then subscription; the message stays SENDING in countByPhase", async () => {
      expect(await store.countDeliveries()).toEqual([]);
      const two = new ReliableMessageService({ store, clock, options: { subscriptions: { accounting: SUBS, billing: ["x"] }, maxRejects: 1 } });
      await sent("C-1");
      await sent("C-2");
      await two.saveAndSend({ messageId: "B-1", body: "{}", consumerQueue: "billing" });
      await service.saveAndSend({ messageId: "P-1", body: "{}", consumerQueue: "payments" });
      await service.acknowledge("C-1", "audit");
      await service.markDead("C-2", "down", "ledger");
      await two.reject("B-1", "refused", "x");
      const phases = (sending: number, dead: number, acknowledged: number) => ({ SENDING: sending, DEAD: dead, ACKNOWLEDGED: acknowledged });
      expect(await store.countDeliveries()).toEqual([
        { queue: "accounting", subscription: "audit", phases: phases(1, 0, 1) },
        { queue: "accounting", subscription: "ledger", phases: phases(1, 1, 0) },
        { queue: "accounting", subscription: "mail", phases: phases(2, 0, 0) },
        { queue: "billing", subscription: "x", phases: phases(0, 1, 0) },
      ]);
      expect(await store.countByPhase()).toMatchObject({ SENDING: 4, DEAD: 0 });
    });

    it("a batch acknowledgement naming a subscription is one commitMany: each id answers on its own, the last one completes its message, one changed meanwhile is decided again", async () => {
      for (const id of ["B-1", "B-2", "B-3"]) await sent(id);
      await service.acknowledge("B-2", "audit");
      for (const s of ["ledger", "mail"]) await service.acknowledge("B-3", s);
      await service.saveWaitingConfirm({ messageId: "B-W", body: "{}", consumerQueue: "accounting" });
      await service.saveAndSend({ messageId: "P-2", body: "{}", consumerQueue: "payments" });
      const batches: number[] = [];
      const counting: ReliableMessageStore = { ...bindReliableMessageStore(store), commit: async () => expect.fail("one transaction per id"), commitMany: (writes) => (batches.push(writes.length), store.commitMany(writes)) };
      const batched = new ReliableMessageService({ store: counting, clock, options: { subscriptions: { accounting: SUBS } } });
      const results = await batched.acknowledgeMany(["B-1", "B-2", "NOPE", "B-W", "P-2", "B-3", "B-2"], "audit");
      expect(batches).toEqual([2]);
      expect(results.map((r) => ("outcome" in r ? [r.messageId, r.outcome.applied, r.outcome.delivery?.status] : [r.messageId, r.error.code]))).toEqual([
        ["B-1", true, "ACKNOWLEDGED"],
        ["B-2", false, "ACKNOWLEDGED"],
        ["NOPE", "NOT_FOUND"],
        ["B-W", "ILLEGAL_STATE"],
        ["P-2", "INVALID_MESSAGE"],
        ["B-3", true, "ACKNOWLEDGED"],
      ]);
      expect((await store.get("B-3"))?.status).toBe("ACKNOWLEDGED");
      expect((await store.get("B-1"))?.status).toBe("SENDING");
      expect((await store.deliveries("B-1")).map((d) => d.status)).toEqual(["ACKNOWLEDGED", "SENDING", "SENDING"]);
      // Another subscription's acknowledgement lands between the read and the batch's write: that id is decided again on its own, the other one is not failed.
      await sent("B-4");
      const racing: ReliableMessageStore = {
        ...bindReliableMessageStore(store),
        commitMany: async (writes) => {
          await service.acknowledge("B-4", "ledger");
          return store.commitMany(writes);
        },
      };
      const raced = new ReliableMessageService({ store: racing, clock, options: { subscriptions: { accounting: SUBS } } });
      expect(await raced.acknowledgeMany(["B-4", "B-1"], "mail")).toMatchObject([
        { messageId: "B-4", outcome: { applied: true, delivery: { subscription: "mail", status: "ACKNOWLEDGED" } } },
        { messageId: "B-1", outcome: { applied: true, delivery: { subscription: "mail", status: "ACKNOWLEDGED" } } },
      ]);
      expect((await store.deliveries("B-4")).map((d) => [d.subscription, d.status])).toEqual([["audit", "SENDING"], ["ledger", "ACKNOWLEDGED"], ["mail", "ACKNOWLEDGED"]]);
      expect((await store.history("B-4")).slice(-2).map((h) => h.detail?.split(":")[0])).toEqual(["subscription ledger", "subscription mail"]);
    });

    it("two subscriptions acknowledging at once: the message ends ACKNOWLEDGED (the compare-and-set is on the message)", async () => {
      await sent("F-5");
      await service.acknowledge("F-5", "audit");
      await Promise.all([service.acknowledge("F-5", "ledger"), service.acknowledge("F-5", "mail")]);
      expect((await store.get("F-5"))?.status).toBe("ACKNOWLEDGED");
    });

    it("deleting or purging a message deletes its deliveries", async () => {
      await sent("F-6");
      await sent("F-7");
      for (const s of SUBS) await service.acknowledge("F-7", s);
      await service.deleteByMessageId("F-6");
      expect(await store.deliveries("F-6")).toEqual([]);
      clock.advance(10);
      expect(await service.purgeFinished(clock.now(), 10)).toBe(1);
      expect(await store.deliveries("F-7")).toEqual([]);
      expect(await store.dueDeliveries(clock.now() + 3_600_000, 10)).toEqual([]);
    });
  });
}
