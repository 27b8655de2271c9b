/**
 * Issue 36 item 1 end to end: a queue with three subscriptions, each read by its own plain kafkajs
 * process (or, embedded, a reader of its JSON-lines topic) acknowledging over HTTP with
 * `?subscription=`. `ledger` is slow, `audit` rejects the first delivery, `mail` rejects until it is
 * DEAD and is resent by an operator; the others are not touched by any of it, and the message is
 * ACKNOWLEDGED only once all three have acknowledged.
 */
import { execFileSync } from "node:child_process";
import { expect } from "vitest";
import { schemaErrors } from "../../../core/test/schemas/event-schemas.js";
import { CLI, eventually } from "../runner-process.js";
import { consumer, FAN_OUT_SUBSCRIPTIONS, waitMessage, waitReportedAcks, warmUp, type RmWorld } from "./rm-flows.js";
import { metric, produce, type Consumer } from "./rm-processes.js";

type Message = Record<string, any>;
const SUB_PREFIX = "rmq-sub.";

/** A subscribed message's delivery phase for `sub`, as `GET /rm/v1/messages/<id>` shows it. */
export const phaseOf = (m: Message, sub: string): string | undefined => (m["subscriptions"] as Message[] | undefined)?.find((s) => s["subscription"] === sub)?.["phase"];

export async function fanOutToThreeSubscriptions(w: RmWorld): Promise<void> {
  const queue = w.q.fanOut;
  const [ledger, audit, mail] = FAN_OUT_SUBSCRIPTIONS;
  const topic = (sub: string) => `${SUB_PREFIX}${queue}.${sub}`;
  const readers: Record<string, Consumer> = {
    [ledger]: await consumer(w, topic(ledger), { subscription: ledger, delayMs: 1_000 }),
    [audit]: await consumer(w, topic(audit), { subscription: audit, failTimes: 1 }),
    // maxRejects is 3 in rmConfig: three rejects make mail's delivery DEAD; the fourth delivery (the operator's resend) is acknowledged.
    [mail]: await consumer(w, topic(mail), { subscription: mail, failTimes: 3 }),
  };
  const dlq = await consumer(w, `rmq-dlq.${queue}`, { mode: "none" });
  await warmUp(w, queue, [...Object.values(readers), dlq]);

  const id = `${queue}-1`;
  const sent = await produce(w.url, [
    { op: "prepare", id, queue, body: { order: 1 } },
    { op: "confirm", id },
    // A consumer's call must name its subscription: missing or unknown is 400 naming it.
    { op: "ack", id },
    { op: "ack", id, subscription: "billing" },
  ]);
  expect(sent.map((a) => a.status)).toEqual([201, 200, 400, 400]);
  expect(sent[2]!.body).toMatchObject({ code: "INVALID_MESSAGE", message: expect.stringContaining("audit, ledger, mail") });
  expect(sent[3]!.body.message).toContain('"billing"');

  // ledger (slow) and audit (after one reject) acknowledge; mail's delivery goes DEAD; the message stays SENDING.
  const partly = await waitMessage(w, id, (m) => phaseOf(m, ledger) === "ACKNOWLEDGED" && phaseOf(m, audit) === "ACKNOWLEDGED" && phaseOf(m, mail) === "DEAD", "ledger and audit acknowledged, mail DEAD");
  expect(partly).toMatchObject({ status: "SENDING", phase: "SENDING" });
  const subs = Object.fromEntries((partly["subscriptions"] as Message[]).map((s) => [s["subscription"], s]));
  expect(subs[ledger]).toMatchObject({ sendCount: 1, rejectCount: 0 });
  expect(subs[audit]).toMatchObject({ sendCount: 2, rejectCount: 1 });
  expect(subs[mail]).toMatchObject({ dead: true, rejectCount: 3, lastError: expect.stringContaining("handler failed") });
  const letter = await eventually(async () => (dlq.of(id).length > 0 ? dlq.of(id) : undefined), 30_000, `${id} on rmq-dlq.${queue}`);
  expect(letter).toHaveLength(1);
  expect(letter[0]!.record.value).toMatchObject({ messageId: id, subscription: mail, deadReason: expect.any(String) });
  expect(schemaErrors("reliable-message-dead-letter", letter[0]!.record.value)).toEqual([]);

  // The operator's CLI shows each subscription's state (through the admin API).
  const shown = JSON.parse(execFileSync(process.execPath, [CLI, "reliable", "show", id, "--url", w.url], { encoding: "utf8" })) as Message;
  expect((shown["subscriptions"] as Message[]).map((d) => [d["subscription"], d["phase"]])).toEqual([[audit, "ACKNOWLEDGED"], [ledger, "ACKNOWLEDGED"], [mail, "DEAD"]]);
  // /metrics shows the dead delivery by queue and subscription (read from the store at most every 15 s).
  const deliveries = (subscription: string, phase: string) => metric(w.url, "msgx_reliable_deliveries", { queue, subscription, phase });
  await eventually(async () => ((await deliveries(mail, "DEAD")) === 1 ? true : undefined), 30_000, `msgx_reliable_deliveries{${mail}, DEAD} 1`);
  expect(await deliveries(ledger, "DEAD")).toBe(0);

  // The operator resends mail's delivery only; mail acknowledges it and the message is done.
  const [resent] = await produce(w.url, [{ op: "resend", id, subscription: mail }]);
  expect(resent).toMatchObject({ status: 200, body: { applied: true, delivery: { subscription: mail, dead: false } } });
  const done = await waitMessage(w, id, (m) => m["status"] === "ACKNOWLEDGED", "ACKNOWLEDGED after mail's acknowledgement");
  expect((done["subscriptions"] as Message[]).map((s) => [s["subscription"], s["phase"]])).toEqual([audit, ledger, mail].map((s) => [s, "ACKNOWLEDGED"]));
  await waitReportedAcks(Object.values(readers), [id]);

  // Each subscription's records are its own: the envelope names it, resends reached only it.
  for (const sub of FAN_OUT_SUBSCRIPTIONS) {
    const records = readers[sub]!.of(id);
    expect(records.every((r) => r.record.value?.["subscription"] === sub && r.foreign === undefined), sub).toBe(true);
    expect(schemaErrors("reliable-message", records[0]!.record.value)).toEqual([]);
  }
  // A loaded machine may resend once more before an acknowledgement lands (the consumer dedupes and acknowledges again).
  const answers = (sub: string) => readers[sub]!.of(id).map((r) => r.answer?.op);
  expect(new Set(answers(ledger))).toEqual(new Set(["ack"]));
  expect(answers(audit).slice(0, 2)).toEqual(["reject", "ack"]);
  expect(answers(mail).slice(0, 4)).toEqual(["reject", "reject", "reject", "ack"]);
  expect(readers[mail]!.of(id).map((r) => r.record.value?.["sendCount"]).slice(0, 4)).toEqual([1, 2, 3, 4]);
}
