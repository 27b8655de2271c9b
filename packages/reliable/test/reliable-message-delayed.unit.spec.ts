/**
 * Delayed delivery (issue 36 item 2, RocketMQ 5's timer messages) over the fakes and a manual
 * clock: `deliverAt` / `delayMs` on the prepare, the confirm or the save-and-send hold the first send until
 * then; the recovery job writes it when due; the resend schedule counts from that send.
 */
import { fc, test as property } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { deliveryTime, MAX_DELIVERY_DELAY_MS } from "../src/reliable-delivery.js";
import { RmWorld } from "./rm-world.js";

const MIN = 60_000;
const draft = (messageId: string) => ({ messageId, body: `{"order":"${messageId}"}`, consumerQueue: "accounting" });

describe("delayed delivery", () => {
  it("a confirm with delayMs: SENDING with nothing sent until the delay is over, then sent once by the recovery job", async () => {
    const w = new RmWorld();
    await w.service.saveWaitingConfirm(draft("d-1"));
    const confirmed = await w.service.confirmAndSend("d-1", { delayMs: 10 * MIN });
    expect(confirmed).toMatchObject({ applied: true, event: "scheduled", eventId: null, message: { status: "SENDING", sendCount: 0, nextCheckAt: w.clock.now() + 10 * MIN } });
    // A retried confirm is the no-op it always was.
    expect(await w.service.confirmAndSend("d-1", { delayMs: 1 })).toMatchObject({ applied: false });
    await w.deliverAll();
    expect(w.values("accounting")).toEqual([]);
    w.clock.advance(10 * MIN - 1);
    expect(await w.recovery.step()).toMatchObject({ examined: 0 });
    await w.deliverAll();
    expect(w.values("accounting")).toEqual([]);
    w.clock.advance(1);
    expect(await w.recovery.step()).toMatchObject({ examined: 1, delivered: 1, resent: 0 });
    await w.deliverAll();
    expect(w.values("accounting")).toEqual([expect.objectContaining({ messageId: "d-1", sendCount: 1, sentAt: w.clock.now() })]);
    expect(await w.service.get("d-1")).toMatchObject({ status: "SENDING", sendCount: 1, lastSentAt: w.clock.now() });
  });

  it("the resend schedule counts from the delivery, not from the confirm", async () => {
    const w = new RmWorld();
    const delivered = w.clock.now() + 30 * MIN;
    await w.service.saveAndSend(draft("d-2"), { deliverAt: delivered });
    // Past the first acknowledgement wait (1 min) counted from the confirm: nothing happens.
    w.clock.advance(2 * MIN);
    expect(await w.recovery.step()).toMatchObject({ examined: 0 });
    w.clock.set(delivered);
    expect(await w.recovery.step()).toMatchObject({ delivered: 1 });
    await w.deliverAll();
    // The first wait (1 min) runs from the broker's acknowledgement of that send.
    w.clock.advance(MIN - 1);
    expect(await w.recovery.step()).toMatchObject({ resent: 0 });
    w.clock.advance(1);
    expect(await w.recovery.step()).toMatchObject({ resent: 1 });
    await w.deliverAll();
    expect(w.values("accounting").map((v) => (v as { sendCount: number }).sendCount)).toEqual([1, 2]);
  });

  it("a delayed message cannot be acknowledged or rejected before it is delivered; a time already past sends at once", async () => {
    const w = new RmWorld();
    await w.service.saveAndSend(draft("d-3"), { delayMs: MIN });
    await expect(w.service.acknowledge("d-3")).rejects.toMatchObject({ code: "ILLEGAL_STATE" });
    await expect(w.service.reject("d-3", "no")).rejects.toMatchObject({ code: "ILLEGAL_STATE" });
    const past = await w.service.saveAndSend(draft("d-4"), { deliverAt: w.clock.now() - 1 });
    expect(past).toMatchObject({ event: "saved-and-sent", message: { sendCount: 1 } });
    expect(await w.service.saveAndSend(draft("d-5"), { delayMs: 0 })).toMatchObject({ event: "saved-and-sent" });
    // An operator's resend sends a delayed message now.
    expect(await w.service.resendByMessageId("d-3")).toMatchObject({ applied: true, message: { sendCount: 1 } });
  });

  it("a broker outage at the delivery time counts nothing and makes nothing DEAD", async () => {
    const w = new RmWorld();
    await w.service.saveAndSend(draft("d-6"), { delayMs: MIN });
    w.broker.faults.setDown(true);
    let dead = 0;
    for (let t = 0; t < 12 * 60; t++) {
      w.clock.advance(5_000);
      await w.deliverAll();
      dead += (await w.recovery.step()).dead;
    }
    expect(dead).toBe(0);
    expect(await w.service.get("d-6")).toMatchObject({ sendCount: 1, dead: false });
    w.broker.faults.setDown(false);
    // The relay's backoff ends within its cap; the one send waiting in the outbox then goes.
    for (let t = 0; t < 120 && w.values("accounting").length === 0; t++) {
      w.clock.advance(5_000);
      await w.deliverAll();
    }
    expect(w.values("accounting")).toEqual([expect.objectContaining({ messageId: "d-6", sendCount: 1 })]);
  });

  it("a time given at the prepare: the confirm (producer or check-back) delivers then, unless it gives its own; past by the confirm, at once", async () => {
    const w = new RmWorld();
    const at = w.clock.now() + 20 * MIN;
    await w.service.saveWaitingConfirm(draft("p-1"), { deliverAt: at });
    await w.service.saveWaitingConfirm(draft("p-2"), { delayMs: MIN });
    await w.service.saveWaitingConfirm(draft("p-3"), { deliverAt: at });
    // A repeated prepare is a no-op: the first prepare's time stands.
    expect(await w.service.prepare(draft("p-1"), { delayMs: 1 })).toMatchObject({ applied: false, message: { deliverAt: at } });
    w.checkBack.registerChecker("accounting", async () => "confirm");
    w.clock.advance(2 * MIN);
    // The check-back confirms p-1 and p-3 when their check delay is over; p-2's time is past by then.
    expect(await w.service.confirmAndSend("p-3", { deliverAt: at + MIN })).toMatchObject({ event: "scheduled", message: { nextCheckAt: at + MIN } });
    expect(await w.service.confirmAndSend("p-2")).toMatchObject({ event: "confirmed", message: { sendCount: 1 } });
    w.clock.advance(5 * MIN);
    await w.checkBack.step();
    expect(await w.service.get("p-1")).toMatchObject({ status: "SENDING", sendCount: 0, nextCheckAt: at });
    await w.deliverAll();
    expect(w.values("accounting").map((v) => (v as { messageId: string }).messageId)).toEqual(["p-2"]);
    await w.service.acknowledge("p-2");
    w.clock.set(at);
    expect(await w.recovery.step()).toMatchObject({ delivered: 1 });
    w.clock.set(at + MIN);
    expect(await w.recovery.step()).toMatchObject({ delivered: 1 });
    await w.deliverAll();
    expect(w.values("accounting")).toEqual([
      expect.objectContaining({ messageId: "p-2" }),
      expect.objectContaining({ messageId: "p-1", sendCount: 1, sentAt: at }),
      expect.objectContaining({ messageId: "p-3", sendCount: 1, sentAt: at + MIN }),
    ]);
  });

  it("refuses bad delivery times as INVALID_MESSAGE, at the prepare as at the confirm", async () => {
    const w = new RmWorld();
    await w.service.saveWaitingConfirm(draft("d-7"));
    for (const when of [{ deliverAt: 1, delayMs: 1 }, { delayMs: -1 }, { delayMs: 1.5 }, { delayMs: MAX_DELIVERY_DELAY_MS + 1 }, { deliverAt: w.clock.now() + MAX_DELIVERY_DELAY_MS + 1 }, { deliverAt: -5 }]) {
      await expect(w.service.confirmAndSend("d-7", when), JSON.stringify(when)).rejects.toMatchObject({ code: "INVALID_MESSAGE" });
      await expect(w.service.saveWaitingConfirm(draft("d-8"), when), JSON.stringify(when)).rejects.toMatchObject({ code: "INVALID_MESSAGE" });
    }
    expect(await w.service.get("d-8")).toBeUndefined();
    expect(await w.service.get("d-7")).toMatchObject({ status: "WAITING_CONFIRM" });
  });

  property.prop([fc.integer({ min: 0, max: 2 ** 40 }), fc.integer({ min: 0, max: MAX_DELIVERY_DELAY_MS })])("deliveryTime: a delay lands exactly that far ahead, a past time means now", (now, delay) => {
    expect(deliveryTime({ delayMs: delay }, now)).toBe(delay === 0 ? null : now + delay);
    expect(deliveryTime({ deliverAt: now + delay }, now)).toBe(delay === 0 ? null : now + delay);
    expect(deliveryTime({ deliverAt: Math.max(0, now - delay) }, now)).toBeNull();
    expect(deliveryTime(undefined, now)).toBeNull();
  });
});
