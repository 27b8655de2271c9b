/**
 * Subscriptions' pure parts (issue 36 item 1): the options, which names a call must give, and the
 * delivery machine being the message machine on the subscription's view.
 */
import { describe, expect, it } from "vitest";
import { reliableMessageOptions } from "../src/reliable-message-options.js";
import { ReliableMessageStatus } from "../src/reliable-message.js";
import { sampleReliableMessage } from "../src/reliable-message-store.contract.js";
import { checkSubscriptionArgument, firstDelivery, subscriptionNamesFor, subscriptionPhase } from "../src/subscription-delivery.js";
import { decideSubscriptionDelivery, evolveSubscriptionDelivery } from "../src/subscription-machine.js";

const T0 = Date.UTC(2026, 2, 5, 8, 0, 0);
const options = reliableMessageOptions({ subscriptions: { q: ["a", "b"] }, maxRejects: 1 });
const sent = sampleReliableMessage("M-1", { consumerQueue: "q", status: ReliableMessageStatus.SENDING, sendCount: 1, lastSentAt: T0, nextCheckAt: T0 + 60_000, version: 2 });

describe("subscriptions", () => {
  it("options: 1–20 names of [A-Za-z0-9_-], no repeat; a RangeError names the queue", () => {
    expect(reliableMessageOptions().subscriptions).toEqual({});
    for (const bad of [[], ["a.b"], ["a", "a"], ["x".repeat(51)], Array.from({ length: 21 }, (_, i) => `s${i}`)]) {
      expect(() => reliableMessageOptions({ subscriptions: { q: bad } }), JSON.stringify(bad)).toThrow(/subscriptions\.q/);
    }
  });

  it("a call names one of the message's deliveries, else (unsent) one of its queue's; none once sent without", () => {
    const a = firstDelivery(sent, "a");
    expect(subscriptionNamesFor(sent, [a], ["a", "b", "c"])).toEqual(["a"]);
    expect(subscriptionNamesFor({ ...sent, status: ReliableMessageStatus.WAITING_CONFIRM, sendCount: 0 }, [], ["a", "b"])).toEqual(["a", "b"]);
    expect(subscriptionNamesFor(sent, [], ["a", "b"])).toEqual([]);
    expect(() => checkSubscriptionArgument("M-1", "q", ["a", "b"], undefined)).toThrow(/subscriptions \(a, b\)/);
    expect(() => checkSubscriptionArgument("M-1", "q", ["a", "b"], "c")).toThrow(/unknown subscription "c"/);
    expect(() => checkSubscriptionArgument("M-1", "q", [], "a")).toThrow(/no subscriptions/);
    expect(() => checkSubscriptionArgument("M-1", "q", ["a"], "a")).not.toThrow();
  });

  it("the delivery machine is the message machine on the subscription's view: its own counts, the message's content", () => {
    const ctx = { now: T0 + 1_000, options };
    const a = firstDelivery(sent, "a");
    expect(a).toMatchObject({ sendCount: 1, lastSentAt: T0, nextCheckAt: T0 + 60_000, status: "SENDING", dead: false });
    const decision = decideSubscriptionDelivery({ type: "reject", reason: "no" }, sent, a, ctx);
    expect(decision).toEqual({ kind: "apply", event: { type: "rejected", reason: "no", final: true } });
    if (decision.kind !== "apply") throw new Error("expected an event");
    const dead = evolveSubscriptionDelivery(sent, a, decision.event, ctx);
    expect(subscriptionPhase(dead)).toBe("DEAD");
    expect(dead).toMatchObject({ messageId: "M-1", subscription: "a", rejectCount: 1, lastError: "no", updatedAt: T0 + 1_000 });
    expect(decideSubscriptionDelivery({ type: "acknowledge" }, sent, dead, ctx)).toEqual({ kind: "apply", event: { type: "acknowledged" } });
    const done = evolveSubscriptionDelivery(sent, dead, { type: "acknowledged" }, ctx);
    expect(subscriptionPhase(done)).toBe("ACKNOWLEDGED");
    expect(decideSubscriptionDelivery({ type: "acknowledge" }, sent, done, ctx)).toMatchObject({ kind: "noop" });
    expect(decideSubscriptionDelivery({ type: "resend" }, sent, done, ctx)).toMatchObject({ kind: "reject", code: "ILLEGAL_STATE" });
  });
});
