/**
 * A queue both ordered by key and subscribed (issue 36 items 1 and 3 together), on the fakes: a
 * key's next message fans out only once every subscription has acknowledged the one before it,
 * its records keyed by the business key on each subscription's topic; other keys are not held.
 */
import { describe, expect, it } from "vitest";
import { reliableSubscriptionTarget } from "../src/message-envelope.js";
import { RmWorld } from "./rm-world.js";

const SUBS = ["ledger", "audit"];

/** The first sends written to `subscription`'s target, as [messageId, record key]. */
function firstSends(w: RmWorld, subscription: string): [string, string][] {
  const rows = [...w.db.tables.events].sort((a, b) => a.eventId - b.eventId);
  return rows.filter((r) => r.target === reliableSubscriptionTarget("orders", subscription) && r.stateVersion === 1).map((r) => [(r.payload as { messageId: string }).messageId, r.partitionKey]);
}

describe("per-key order on a queue with subscriptions", () => {
  it("a key's next message waits until every subscription acknowledged the one before it; another key flows", async () => {
    const w = new RmWorld(["orders"], { orderedQueues: ["orders"], subscriptions: { orders: SUBS } });
    for (const [id, key] of [["A-1", "k-a"], ["A-2", "k-a"], ["B-1", "k-b"]] as const) {
      await w.service.prepare({ messageId: id, body: "{}", consumerQueue: "orders", key });
      await w.service.confirmAndSend(id);
    }
    for (const s of SUBS) expect(firstSends(w, s)).toEqual([["A-1", "k-a"], ["B-1", "k-b"]]);
    expect((await w.service.heldBehind("A-2"))?.messageId).toBe("A-1");

    await w.service.acknowledge("A-1", "ledger");
    expect((await w.service.heldBehind("A-2"))?.messageId).toBe("A-1");
    for (const s of SUBS) expect((firstSends(w, s)).map(([id]) => id)).not.toContain("A-2");

    await w.service.acknowledge("A-1", "audit");
    expect((await w.store.get("A-1"))?.status).toBe("ACKNOWLEDGED");
    expect(await w.service.heldBehind("A-2")).toBeUndefined();
    for (const s of SUBS) expect(firstSends(w, s)).toEqual([["A-1", "k-a"], ["B-1", "k-b"], ["A-2", "k-a"]]);
  });
});
