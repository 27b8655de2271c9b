/**
 * The recovery job over subscription deliveries (issue 36 item 1), on the fakes: each subscription
 * is resent, dead-lettered and held during an outage on its own schedule, to its own topic only.
 */
import { MsgDispatcher } from "@msgx/core";
import { describe, expect, it } from "vitest";
import { reliableSubscriptionTarget } from "../src/message-envelope.js";
import { RmWorld } from "./rm-world.js";

const MIN = 60_000;
const SUBS = ["a", "b", "c"];

function fanOutWorld(): { w: RmWorld; deliver: () => Promise<void>; records: (sub: string) => { sendCount: number; subscription: string }[] } {
  const w = new RmWorld(["accounting"], { subscriptions: { accounting: SUBS }, resendWaitsMs: [MIN], maxSends: 2, outageRecheckMs: 5_000 });
  const dispatchers = SUBS.map(
    (s) =>
      new MsgDispatcher(
        { outbox: w.outbox, delivery: w.broker, clock: w.clock, logger: w.logger },
        { target: reliableSubscriptionTarget("accounting", s), topics: { [reliableSubscriptionTarget("accounting", s)]: `rmq-sub.accounting.${s}` } },
      ),
  );
  const deliver = async () => {
    await w.deliverAll();
    for (const d of dispatchers) for (let i = 0; i < 100 && (await d.step()).did === "sent"; i++);
  };
  const records = (sub: string) => w.broker.records(`rmq-sub.accounting.${sub}`).map((r) => JSON.parse(r.value!) as { sendCount: number; subscription: string });
  return { w, deliver, records };
}

describe("recovery of subscription deliveries", () => {
  it("resends only the unacknowledged subscription, then makes only it DEAD with its dead letter; the message waits for it", async () => {
    const { w, deliver, records } = fanOutWorld();
    await w.service.saveAndSend({ messageId: "F-1", body: "{}", consumerQueue: "accounting" });
    await deliver();
    expect(w.values("accounting")).toEqual([]);
    for (const s of SUBS) expect(records(s).map((r) => [r.subscription, r.sendCount])).toEqual([[s, 1]]);
    await w.service.acknowledge("F-1", "a");
    await w.service.acknowledge("F-1", "b");
    w.clock.advance(MIN);
    expect(await w.recovery.step()).toMatchObject({ resent: 1, dead: 0 });
    await deliver();
    expect(records("c").map((r) => r.sendCount)).toEqual([1, 2]);
    expect(records("a")).toHaveLength(1);
    expect(records("b")).toHaveLength(1);
    w.clock.advance(MIN);
    expect(await w.recovery.step()).toMatchObject({ resent: 0, dead: 1 });
    await deliver();
    expect(w.deadLetters("accounting")).toMatchObject([{ messageId: "F-1", subscription: "c", deadReason: "never acknowledged after 2 sends" }]);
    expect(await w.service.get("F-1")).toMatchObject({ status: "SENDING", dead: false });
    expect(w.logger.at("error")).toContain("reliable message dead for a subscription");
    w.clock.advance(10 * MIN);
    expect(await w.recovery.step()).toMatchObject({ examined: 0 });
    expect((await w.service.acknowledge("F-1", "c")).message?.status).toBe("ACKNOWLEDGED");
  });

  it("a subscription's send still in the outbox (broker down) is never counted; the schedule runs from the broker's acknowledgement", async () => {
    const { w, deliver, records } = fanOutWorld();
    w.broker.faults.setDown(true);
    await w.service.saveAndSend({ messageId: "F-2", body: "{}", consumerQueue: "accounting" });
    for (let i = 0; i < 10; i++) {
      w.clock.advance(MIN);
      await deliver();
      expect(await w.recovery.step()).toMatchObject({ resent: 0, dead: 0 });
    }
    expect((await w.service.subscriptions("F-2")).map((d) => [d.sendCount, d.dead])).toEqual(SUBS.map(() => [1, false]));
    w.broker.faults.setDown(false);
    w.clock.advance(30_000);
    await deliver();
    for (const s of SUBS) expect(records(s)).toHaveLength(1);
    w.clock.advance(MIN - 1);
    expect((await w.recovery.step()).resent).toBe(0);
    w.clock.advance(1);
    expect((await w.recovery.step()).resent).toBe(3);
  });
});
