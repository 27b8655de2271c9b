/**
 * One queue both ordered by key and subscribed (issue 36 items 1 and 3 together), end to end: a
 * key's head fans out to every subscription, and the key's next message waits until the head is
 * ACKNOWLEDGED, that is until the last subscription acknowledged it. `mail` rejects the head until
 * its delivery is DEAD, so the next message stays held (never read by `ledger`, which acknowledged
 * the head at once) until an operator resends mail's delivery and mail acknowledges it.
 */
import { expect } from "vitest";
import { phaseOf } from "./rm-fan-out-flow.js";
import { consumer, ORDERED_FAN_OUT_SUBSCRIPTIONS, waitMessage, waitReportedAcks, type RmWorld } from "./rm-flows.js";
import { getMessage, produce, RM_TOKEN, type Consumer } from "./rm-processes.js";

type Message = Record<string, any>;

export async function orderedQueueWithSubscriptions(w: RmWorld): Promise<void> {
  const queue = w.q.orderedFanOut;
  const [ledger, mail] = ORDERED_FAN_OUT_SUBSCRIPTIONS;
  const topic = (sub: string) => `rmq-sub.${queue}.${sub}`;
  const readers: Record<string, Consumer> = {
    [ledger]: await consumer(w, topic(ledger), { subscription: ledger }),
    // maxRejects is 3 in rmConfig: the head's delivery to mail goes DEAD; its resend is acknowledged.
    [mail]: await consumer(w, topic(mail), { subscription: mail, failTimes: 3, onlySuffix: "-head" }),
  };
  // The warm-up needs a key on an ordered queue (rm-flows' warmUp sends none).
  const warm = `${queue}-warm-up`;
  expect((await produce(w.url, [{ op: "prepare", id: warm, queue, body: "warm-up", key: "warm", confirm: true }]))[0]!.status).toBe(201);
  await waitMessage(w, warm, (m) => m["status"] === "ACKNOWLEDGED", "acknowledged by both subscriptions (warm-up)");
  for (const r of Object.values(readers)) await r.ready();

  const [head, next] = [`${queue}-K1-head`, `${queue}-K2`];
  const sent = await produce(w.url, [
    { op: "prepare", id: head, queue, body: head, key: "K", confirm: true },
    { op: "prepare", id: next, queue, body: next, key: "K", confirm: true },
  ]);
  expect(sent.map((a) => a.status)).toEqual([201, 201]);

  // ledger acknowledged the head, mail's delivery of it is DEAD: the head is not finished, so the next one waits.
  await waitMessage(w, head, (m) => phaseOf(m, ledger) === "ACKNOWLEDGED" && phaseOf(m, mail) === "DEAD", "ledger acknowledged, mail DEAD");
  const held = await fetch(new URL(`/rm/v1/messages/${encodeURIComponent(next)}`, w.url), { headers: { authorization: `Bearer ${RM_TOKEN}` } });
  expect(held.status).toBe(200);
  expect(await held.json()).toMatchObject({ message: { status: "SENDING", sendCount: 0, key: "K" }, heldBehind: head });
  expect(await getMessage(w.url, head)).toMatchObject({ status: "SENDING" });
  for (const sub of [ledger, mail]) expect(readers[sub]!.of(next), sub).toEqual([]);

  // The operator resends mail's delivery; mail acknowledges; the head is done and the key moves on to both subscriptions.
  expect((await produce(w.url, [{ op: "resend", id: head, subscription: mail }]))[0]).toMatchObject({ status: 200, body: { applied: true } });
  await waitMessage(w, head, (m) => m["status"] === "ACKNOWLEDGED", "ACKNOWLEDGED after mail's acknowledgement");
  const done = await waitMessage(w, next, (m) => m["status"] === "ACKNOWLEDGED", "delivered to both and acknowledged", 90_000);
  expect((done["subscriptions"] as Message[]).map((s) => [s["subscription"], s["phase"]])).toEqual([ledger, mail].sort().map((s) => [s, "ACKNOWLEDGED"]));
  await waitReportedAcks(Object.values(readers), [head, next]);
  for (const sub of [ledger, mail]) {
    // Each subscription reads the key in order: every record of the head before the first of the next.
    const ids = readers[sub]!.records().map((r) => r.record.value?.["messageId"]).filter((id) => id === head || id === next);
    expect(ids.indexOf(next), sub).toBeGreaterThan(ids.lastIndexOf(head));
    expect(readers[sub]!.of(next).every((r) => r.record.value?.["subscription"] === sub), sub).toBe(true);
  }
}
