/**
 * The flows of issue 20's "Must show", written once and run by both reliable-service e2e suites
 * (real PostgreSQL + Kafka, and the embedded default). Every actor is its own process talking HTTP
 * (producer.mjs, checker.mjs) or reading the topic (consumer.mjs); the test only orchestrates and
 * reads what they saw. The suites give the runner the settings of `rmConfig`.
 */
import { expect } from "vitest";
import { schemaErrors } from "../../../core/test/schemas/event-schemas.js";
import { eventually } from "../runner-process.js";
import { CHECKER_TOKEN, getMessage, metric, produce, RM_TOKEN, startConsumer, type Checker, type Consumer, type ConsumerSource } from "./rm-processes.js";

/** The queues of one run, one per flow (topic names are global on a shared broker). */
export function rmQueues(run: string) {
  return {
    once: `${run}.once`,
    checkBack: `${run}.check-back`,
    checkerDown: `${run}.checker-down`,
    poison: `${run}.poison`,
    unacked: `${run}.unacked`,
    outage: `${run}.outage`,
    rules: `${run}.rules`,
    /** Ordered by key (`orderByKey`). */
    ordered: `${run}.ordered`,
    fanOut: `${run}.fan-out`,
    /** Ordered by key and subscribed (`ORDERED_FAN_OUT_SUBSCRIPTIONS`). */
    orderedFanOut: `${run}.ordered-fan-out`,
  } as const;
}
export type RmQueues = ReturnType<typeof rmQueues>;

/** The check-back flow's queue default, longer than the service-wide `checkAfterMs`. */
const CHECK_BACK_QUEUE_DELAY_MS = 1_000;
/** A message's own check delay (like RocketMQ's check immunity), longer than its queue's. */
const MESSAGE_CHECK_DELAY_MS = 2_000;

/** The subscriptions of the fan-out flow's queue (issue 36 item 1). */
export const FAN_OUT_SUBSCRIPTIONS = ["ledger", "audit", "mail"] as const;

/** The subscriptions of the queue both ordered by key and subscribed (issue 36 items 1 and 3 together). */
export const ORDERED_FAN_OUT_SUBSCRIPTIONS = ["ledger", "mail"] as const;

/** `rmConfig`'s maxSends. */
const MAX_SENDS = 3;

/**
 * Short timings so every schedule runs in seconds: resends at 0, 3 and 7 s after the broker took
 * the send, dead at 11 s; a consumer's three rejects make it dead in about a second; check-back
 * from 0.5 s, backing off from 0.5 s doubling to 4 s, alerting from the third inconclusive check.
 */
export function rmConfig(q: RmQueues, checker: Checker): Record<string, unknown> {
  const at = (queue: string) => ({ checkerUrl: `${checker.url}/check/${queue}`, checkerToken: CHECKER_TOKEN });
  return {
    reliable: {
      token: RM_TOKEN,
      jobIntervalMs: 200,
      checkAfterMs: 500,
      checkIntervalMs: 500,
      maxCheckIntervalMs: 4_000,
      maxChecks: 3,
      checkerTimeoutMs: 2_000,
      resendWaitsMs: [3_000, 4_000],
      maxSends: MAX_SENDS,
      maxRejects: 3,
      rejectWaitsMs: [200],
      outageRecheckMs: 500,
      queues: { [q.checkBack]: { ...at(q.checkBack), checkAfterMs: CHECK_BACK_QUEUE_DELAY_MS }, [q.checkerDown]: at(q.checkerDown), [q.rules]: at(q.rules), [q.ordered]: { orderByKey: true }, [q.fanOut]: { subscriptions: [...FAN_OUT_SUBSCRIPTIONS] }, [q.orderedFanOut]: { orderByKey: true, subscriptions: [...ORDERED_FAN_OUT_SUBSCRIPTIONS] } },
    },
  };
}
/** The whole resend schedule of `rmConfig`: from the first send the broker took to DEAD. */
export const RESEND_SCHEDULE_MS = 3_000 + 4_000 + 4_000;

export interface RmWorld {
  /** The runner (`msgx run`). */
  readonly url: string;
  readonly checker: Checker;
  readonly q: RmQueues;
  /** Where a consumer group reads `topic`: Kafka, or the embedded runner's file. */
  source(topic: string, group: string): ConsumerSource;
  /** Consumers to stop when the flow ends (the suite does it). */
  readonly consumers: Consumer[];
}

type Message = Record<string, any>;

export async function consumer(w: RmWorld, topic: string, opts: Parameters<typeof startConsumer>[2] = {}): Promise<Consumer> {
  const c = await startConsumer(topic, w.source(topic, `g-${topic}-${w.consumers.length}`), { url: w.url, waitReady: false, ...opts });
  w.consumers.push(c);
  return c;
}

/** Waits until the service's view of `id` satisfies `ok`; returns it. */
export function waitMessage(w: RmWorld, id: string, ok: (m: Message) => boolean, what: string, timeoutMs = 60_000): Promise<Message> {
  let seen: Message | undefined;
  return eventually(async () => {
    const m = await getMessage(w.url, id);
    seen = m;
    return m !== undefined && ok(m) ? m : undefined;
  }, timeoutMs, `${id} ${what}`).catch((e: unknown) => {
    // The state it was left in is what an investigation starts from.
    throw new Error(`${String(e instanceof Error ? e.message : e)}; last seen: ${seen === undefined ? "no such message" : JSON.stringify(seen)}`);
  });
}

export const acknowledged = (m: Message) => m["status"] === "ACKNOWLEDGED";

/**
 * Waits until the service shows `id` ACKNOWLEDGED and `reader` has reported the acknowledgement
 * that did it: the consumer prints its answer after the service answered, so the service's view
 * can be read first.
 */
async function waitAcknowledgedBy(w: RmWorld, reader: Consumer, id: string, what: string, timeoutMs = 60_000): Promise<Message> {
  const m = await waitMessage(w, id, acknowledged, what, timeoutMs);
  await waitReportedAcks([reader], [id]);
  return m;
}

/**
 * Waits until every reader has printed an acknowledgement the service accepted for every id. The
 * consumer prints a record once the service answered its ack, so a message can show ACKNOWLEDGED
 * before the reader's line about it arrives: read the readers' records only after this.
 */
export async function waitReportedAcks(readers: readonly Consumer[], ids: readonly string[], timeoutMs = 30_000): Promise<void> {
  const acked = (reader: Consumer, id: string) => reader.of(id).some((r) => r.answer?.op === "ack" && r.answer.status === 200);
  const what = ids.length <= 10 ? ids.join(", ") : `${ids.length} messages`;
  await eventually(async () => (readers.every((reader) => ids.every((id) => acked(reader, id))) ? true : undefined), timeoutMs, `${what}: the consumers' acknowledgements`);
}

/**
 * The queue's first message. The service creates a queue's topics on its first send (the broker
 * creates none by itself), so a Kafka consumer can subscribe only then; once this message is
 * acknowledged, the readers are reading, and what the flow sends next does not race their start
 * against the resend schedule. The consumer always acknowledges a "-warm-up" id.
 */
export async function warmUp(w: RmWorld, queue: string, readers: readonly Consumer[]): Promise<void> {
  const id = `${queue}-warm-up`;
  expect((await produce(w.url, [{ op: "prepare", id, queue, body: "warm-up", confirm: true }]))[0]!.status).toBe(201);
  await waitMessage(w, id, acknowledged, "acknowledged (warm-up)");
  for (const r of readers) await r.ready();
}
export const dead = (m: Message) => m["dead"] === true;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Flow 1: prepare + confirm → delivered once to a plain consumer, which acks over HTTP. */
export async function preparedAndConfirmedDeliveredOnce(w: RmWorld): Promise<void> {
  const queue = w.q.once;
  const reader = await consumer(w, `rmq.${queue}`);
  await warmUp(w, queue, [reader]);
  const id = `${queue}-pay-1`;
  const [prepared, confirmed, again] = await produce(w.url, [
    { op: "prepare", id, queue, body: { order: 1, amount: 10 }, dataType: "json", headers: { "x-tenant": "t1" }, field1: "order-1" },
    { op: "confirm", id },
    { op: "confirm", id },
  ]);
  expect(prepared!.status).toBe(201);
  expect(prepared!.body.message).toMatchObject({ messageId: id, status: "WAITING_CONFIRM" });
  // Confirming twice is not an error.
  expect([confirmed!.status, again!.status]).toEqual([200, 200]);

  const done = await waitAcknowledgedBy(w, reader, id, "ACKNOWLEDGED by the consumer");
  expect(done).toMatchObject({ status: "ACKNOWLEDGED", dead: false, sendCount: 1 });
  const got = reader.of(id);
  expect(got).toHaveLength(1);
  const r = got[0]!;
  expect(r.record.key).toBe(id);
  expect(r.record.value).toMatchObject({ messageId: id, consumerQueue: queue, dataType: "json", sendCount: 1, field1: "order-1" });
  expect(JSON.parse(r.record.value!["body"])).toEqual({ order: 1, amount: 10 });
  expect(schemaErrors("reliable-message", r.record.value)).toEqual([]);
  expect(r.record.value!["headers"] ?? r.record.headers).toMatchObject({ "x-tenant": "t1" });
  expect(r).toMatchObject({ effect: true, answer: { op: "ack", status: 200 } });

  // Acknowledged is final: past the first resend wait nothing is sent again, and the id is taken.
  await sleep(4_000);
  expect(reader.of(id)).toHaveLength(1);
  const [reused] = await produce(w.url, [{ op: "prepare", id, queue, body: "a new message under a used id" }]);
  expect(reused!.status).toBe(409);
  expect(reused!.body).toMatchObject({ error: expect.any(String), message: expect.any(String) });
}

/**
 * Flow 2: prepare then silence → the service asks the producer's checker after the message's (or
 * its queue's) check delay; `confirm` delivers it, `cancel` cancels it and nothing is delivered.
 */
export async function silentProducerResolvedByCheckBack(w: RmWorld): Promise<void> {
  const queue = w.q.checkBack;
  const paid = `${queue}-paid`;
  const abandoned = `${queue}-abandoned`;
  await w.checker.control({ verdicts: { [paid]: "confirm", [abandoned]: "cancel" } });
  const reader = await consumer(w, `rmq.${queue}`);
  await warmUp(w, queue, [reader]);
  const t0 = Date.now();
  const prepared = await produce(w.url, [
    { op: "prepare", id: paid, queue, body: "paid order", checkDelayMs: MESSAGE_CHECK_DELAY_MS },
    { op: "prepare", id: abandoned, queue, body: "abandoned order" },
  ]);
  expect(prepared.map((a) => a.status)).toEqual([201, 201]);
  // …and the producer says nothing more.

  await waitAcknowledgedBy(w, reader, paid, "confirmed by check-back and acknowledged");
  const cancelled = await waitMessage(w, abandoned, (m) => m["status"] === "CANCELLED", "cancelled by check-back");
  expect(cancelled).toMatchObject({ status: "CANCELLED", sendCount: 0 });

  const calls = await w.checker.calls();
  const first = (id: string) => calls.find((c) => c.messageId === id)!;
  // Each message waited its own delay (per message, else its queue's) before the first check.
  expect(first(paid).at - t0).toBeGreaterThanOrEqual(MESSAGE_CHECK_DELAY_MS);
  expect(first(abandoned).at - t0).toBeGreaterThanOrEqual(CHECK_BACK_QUEUE_DELAY_MS);
  expect(first(paid)).toMatchObject({ queue, status: 200, verdict: "confirm", auth: `Bearer ${CHECKER_TOKEN}` });
  expect(first(paid).request).toMatchObject({ messageId: paid, queue, body: "paid order" });
  // Asked until it answered (a call the service gave up on under load is asked again), always "cancel".
  expect(new Set(calls.filter((c) => c.messageId === abandoned).map((c) => c.verdict))).toEqual(new Set(["cancel"]));

  // A later message on the queue arrives; the cancelled one never did.
  const [sentinel] = await produce(w.url, [{ op: "prepare", id: `${queue}-sentinel`, queue, body: "after", confirm: true }]);
  expect(sentinel!.status).toBe(201);
  await waitMessage(w, `${queue}-sentinel`, acknowledged, "acknowledged");
  expect(reader.of(paid).filter((r) => r.effect)).toHaveLength(1);
  expect(reader.of(abandoned)).toEqual([]);
  // The producer comes back late: its confirm of the cancelled message is refused.
  const [late] = await produce(w.url, [{ op: "confirm", id: abandoned }]);
  expect(late!.status).toBe(409);
}

/**
 * Flow 3: the checker answers 500 for `failForMs` → the message waits (never cancelled, never
 * dropped), is asked with backoff and alerts; once the checker recovers it is confirmed and delivered.
 */
export async function failingCheckerNeverLosesTheMessage(w: RmWorld, failForMs: number): Promise<{ calls: number; maxGapMs: number }> {
  const queue = w.q.checkerDown;
  const id = `${queue}-1`;
  const reader = await consumer(w, `rmq.${queue}`);
  await warmUp(w, queue, [reader]);
  // Taken before the checker starts its window, so every call before this instant is answered 500.
  const failingUntil = Date.now() + failForMs;
  await w.checker.control({ verdicts: { [id]: "confirm" }, failForMs: { [queue]: failForMs } });
  const alertsBefore = await metric(w.url, "msgx_reliable_alerts_total", { kind: "checkback" });
  const errorsBefore = await metric(w.url, "msgx_reliable_checkbacks_total", { outcome: "error" });
  expect((await produce(w.url, [{ op: "prepare", id, queue, body: "waits out the checker" }]))[0]!.status).toBe(201);

  // Throughout the checker's outage the message is kept, unconfirmed and undelivered.
  while (Date.now() < failingUntil - 1_000) {
    const m = await getMessage(w.url, id);
    expect(m?.["status"]).toBe("WAITING_CONFIRM");
    expect(reader.of(id)).toEqual([]);
    await sleep(Math.min(5_000, Math.max(0, failingUntil - 1_000 - Date.now())));
  }
  const failing = (await w.checker.calls()).filter((c) => c.messageId === id && c.at < failingUntil);
  expect(failing.length).toBeGreaterThanOrEqual(3);
  expect(failing.every((c) => c.status === 500)).toBe(true);
  // Inconclusive checks back off (0.5 s doubling to 4 s), so the checker is not hammered.
  const gaps = failing.slice(1).map((c, i) => c.at - failing[i]!.at);
  const maxGapMs = Math.max(...gaps);
  expect(maxGapMs).toBeGreaterThanOrEqual(1_900);
  expect(failing.length).toBeLessThan(Math.ceil(failForMs / 500) / 2);
  // From the third inconclusive check on, each one alerts.
  expect(await metric(w.url, "msgx_reliable_alerts_total", { kind: "checkback" })).toBeGreaterThanOrEqual(alertsBefore + failing.length - 2);
  expect(await metric(w.url, "msgx_reliable_checkbacks_total", { outcome: "error" })).toBeGreaterThanOrEqual(errorsBefore + failing.length);

  await waitAcknowledgedBy(w, reader, id, "confirmed once the checker answers, and acknowledged");
  const calls = (await w.checker.calls()).filter((c) => c.messageId === id);
  expect(calls.at(-1)).toMatchObject({ status: 200, verdict: "confirm" });
  expect(reader.of(id).filter((r) => r.effect)).toHaveLength(1);
  return { calls: calls.length, maxGapMs };
}

/**
 * Flows 4 and 5 (by queue): a handler that fails past the reject budget → DEAD, one record on
 * `rmq-dlq.<queue>` (read by a plain consumer); `POST /rm/v1/queues/<queue>/replay-dead` sends the
 * queue's dead letters again, and the fixed handler acknowledges them.
 */
export async function poisonMessageDeadLetteredAndReplayed(w: RmWorld): Promise<void> {
  const queue = w.q.poison;
  const ids = [`${queue}-1`, `${queue}-2`];
  // The handler fails the first three deliveries of each message (the budget, maxRejects 3).
  const reader = await consumer(w, `rmq.${queue}`, { failTimes: 3 });
  const dlq = await consumer(w, `rmq-dlq.${queue}`, { mode: "none" });
  await warmUp(w, queue, [reader, dlq]);
  const deadBefore = await metric(w.url, "msgx_reliable_dead_letters_total");
  const rejectsBefore = await metric(w.url, "msgx_reliable_rejects_total");
  const sent = await produce(w.url, ids.map((id) => ({ op: "prepare", id, queue, body: `poison ${id}`, confirm: true })));
  expect(sent.map((a) => [a.status, a.body.message?.status])).toEqual(ids.map(() => [201, "SENDING"]));

  for (const id of ids) {
    const m = await waitMessage(w, id, dead, "DEAD after three rejects");
    expect(m).toMatchObject({ rejectCount: 3, lastError: expect.stringContaining("handler failed") });
    // The consumer reports its third answer after the service has already marked the message DEAD.
    const answers = await eventually(async () => (reader.of(id).length >= 3 ? reader.of(id) : undefined), 30_000, `${id}: the consumer's three answers`);
    expect(answers.map((r) => r.answer)).toEqual([1, 2, 3].map(() => ({ op: "reject", status: 200 })));
    const letters = await eventually(async () => (dlq.of(id).length > 0 ? dlq.of(id) : undefined), 30_000, `${id} on rmq-dlq.${queue}`);
    expect(letters).toHaveLength(1);
    expect(letters[0]!.record.key).toBe(id);
    expect(letters[0]!.record.value).toMatchObject({ messageId: id, consumerQueue: queue, body: `poison ${id}`, deadReason: expect.any(String) });
    expect(schemaErrors("reliable-message-dead-letter", letters[0]!.record.value)).toEqual([]);
  }
  expect(await metric(w.url, "msgx_reliable_dead_letters_total")).toBeGreaterThanOrEqual(deadBefore + 2);
  expect(await metric(w.url, "msgx_reliable_rejects_total")).toBeGreaterThanOrEqual(rejectsBefore + 6);

  const [replayed] = await produce(w.url, [{ op: "replay-dead", queue }]);
  expect(replayed).toMatchObject({ status: 200, body: { resent: 2 } });
  for (const id of ids) {
    expect(await waitAcknowledgedBy(w, reader, id, "acknowledged after the replay")).toMatchObject({ dead: false });
    // Exactly one delivery had an effect, and it was acknowledged; a loaded machine may resend once
    // more before the acknowledgement lands, which the consumer dedupes and acknowledges again.
    expect(reader.of(id).filter((r) => r.effect)).toMatchObject([{ answer: { op: "ack", status: 200 } }]);
    // A replay goes to the queue topic, never to the dead letters again.
    expect(dlq.of(id)).toHaveLength(1);
  }
}

/**
 * Flow 5 (operator): a consumer that never acknowledges → after `maxSends` sends the messages are
 * DEAD (and dead-lettered); the admin's `resend-dead?queue=` sends them again and the consumer,
 * back, acknowledges.
 */
export async function unacknowledgedResentByQueue(w: RmWorld): Promise<void> {
  const queue = w.q.unacked;
  const ids = [`${queue}-1`, `${queue}-2`];
  // The consumer sees the first three sends of each message but dies before acknowledging them.
  const reader = await consumer(w, `rmq.${queue}`, { silentTimes: 3 });
  const dlq = await consumer(w, `rmq-dlq.${queue}`, { mode: "none" });
  await warmUp(w, queue, [reader, dlq]);
  const sent = await produce(w.url, ids.map((id) => ({ op: "prepare", id, queue, body: `unacked ${id}`, confirm: true })));
  expect(sent.map((a) => a.status)).toEqual([201, 201]);
  for (const id of ids) {
    expect(await waitMessage(w, id, dead, "DEAD after maxSends unacknowledged sends")).toMatchObject({ sendCount: 3 });
    expect(reader.of(id).map((r) => r.record.value?.["sendCount"])).toEqual([1, 2, 3]);
    await eventually(async () => (dlq.of(id).length === 1 ? true : undefined), 30_000, `${id} on rmq-dlq.${queue}`);
  }
  const res = await fetch(new URL(`/admin/reliable-messages/resend-dead?queue=${encodeURIComponent(queue)}`, w.url), { method: "POST" });
  expect(res.status).toBe(200);
  expect(await res.json()).toMatchObject({ resent: 2 });
  for (const id of ids) {
    await waitAcknowledgedBy(w, reader, id, "acknowledged after the resend");
    // Exactly one delivery had an effect, and it was acknowledged; a loaded machine may resend once
    // more before the acknowledgement lands, which the consumer dedupes and acknowledges again.
    expect(reader.of(id).filter((r) => r.effect)).toMatchObject([{ answer: { op: "ack", status: 200 } }]);
    expect(dlq.of(id)).toHaveLength(1);
  }
}

/** Flow 7: the API's idempotence and refusals, as a producer sees them. */
export async function idempotentAndRefusing(w: RmWorld): Promise<void> {
  const queue = w.q.rules;
  const id = `${queue}-x`;
  const a = await produce(w.url, [
    { op: "prepare", id, queue, body: "x" },
    { op: "prepare", id, queue, body: "x" },
    { op: "prepare", id, queue, body: "other content" },
    { op: "ack", id },
    { op: "cancel", id },
    { op: "cancel", id },
    { op: "confirm", id },
    { op: "get", id: `${queue}-nobody` },
    { op: "prepare", id: `${queue}-bad`, queue: "no spaces allowed", body: "x" },
    { op: "prepare", id: `${queue}-now`, queue, body: "y", confirm: true },
    { op: "prepare", id: `${queue}-now`, queue, body: "y", confirm: true },
  ]);
  expect(a.map((x) => `${x.op} ${x.status}`)).toEqual([
    "prepare 201",
    "prepare 200", // the same prepare again
    "prepare 409", // the same id, other content
    "ack 409", // a prepared message cannot be acknowledged
    "cancel 200",
    "cancel 200",
    "confirm 409", // cancelled
    "get 404",
    "prepare 400",
    "prepare 201",
    "prepare 200",
  ]);
  for (const x of a.filter((x) => x.status >= 400)) expect(x.body).toMatchObject({ error: expect.any(String), message: expect.any(String) });
  // The API has its own token.
  const [anonymous] = await produce(w.url, [{ op: "get", id }], "");
  expect(anonymous!.status).toBe(401);
}

/**
 * Issue 36 item 5, all over HTTP from producer.mjs and a plain reader of the queue's topic, named
 * by `reliable.topicPrefix` (`prefix`): direct sends and saves-and-sends arrive on the prefixed
 * topic, one batch acknowledges the stored ones (a direct send and an unknown id refused each on
 * its own), an operator deletes a prepared message (audited), and the client mistakes are 4xx.
 */
export async function directSendBatchAckAndDelete(w: RmWorld, prefix: string): Promise<void> {
  const queue = w.q.rules;
  const topic = `${prefix}${queue}`;
  const direct = [1, 2, 3].map((i) => `${queue}-direct-${i}`);
  const stored = [1, 2, 3].map((i) => `${queue}-stored-${i}`);
  const answers = await produce(w.url, [
    ...direct.map((id) => ({ op: "direct-send", id, queue, body: { direct: id }, headers: { "x-kind": "direct" } })),
    ...stored.map((id) => ({ op: "prepare", id, queue, body: `stored ${id}`, confirm: true })),
  ]);
  expect(answers.map((a) => a.status)).toEqual([202, 202, 202, 201, 201, 201]);
  expect(answers[0]!.body).toMatchObject({ eventId: expect.any(Number), messageId: direct[0], queue });
  // A reader of the prefixed topic: every send is there, the direct ones with no stored message.
  const reader = await consumer(w, topic, { mode: "none" });
  await reader.ready();
  await eventually(async () => ([...direct, ...stored].every((id) => reader.of(id).length > 0) ? true : undefined), 60_000, `every message on ${topic}`);
  for (const r of reader.records()) expect(r.record.topic).toBe(topic);
  expect(reader.of(direct[0]!)[0]!.record.value).toMatchObject({ messageId: direct[0], consumerQueue: queue, body: JSON.stringify({ direct: direct[0] }), headers: { "x-kind": "direct" } });
  for (const id of direct) expect(await getMessage(w.url, id)).toBeUndefined();

  // One call acknowledges the batch; what cannot be acknowledged is answered per id.
  const [acks] = await produce(w.url, [{ op: "acks", ids: [...stored, direct[0], "nobody"] }]);
  expect(acks).toMatchObject({ status: 200, body: { acknowledged: 3, failed: 2 } });
  expect(acks!.body.results.map((r: { messageId: string; ok: boolean; status?: number }) => [r.messageId, r.ok, r.status ?? 200])).toEqual([
    ...stored.map((id) => [id, true, 200]),
    [direct[0], false, 404],
    ["nobody", false, 404],
  ]);
  for (const id of stored) expect(await getMessage(w.url, id)).toMatchObject({ status: "ACKNOWLEDGED" });

  // The operator deletes a prepared message: gone, audited, its id free again.
  const doomed = `${queue}-doomed`;
  const steps = await produce(w.url, [
    { op: "prepare", id: doomed, queue, body: "never to be sent" },
    { op: "delete", id: doomed, operator: "e2e-operator" },
    { op: "delete", id: doomed, operator: "e2e-operator" },
    { op: "get", id: doomed },
    { op: "acks", ids: [] },
    { op: "direct-send", id: `${queue}-bad`, body: "no queue" },
  ]);
  expect(steps.map((s) => s.status)).toEqual([201, 200, 404, 404, 400, 400]);
  expect(steps[1]!.body).toMatchObject({ deleted: { messageId: doomed, status: "WAITING_CONFIRM" } });
  const audit = (await (await fetch(new URL("/admin/audit", w.url))).json()) as { entries: { operator: string; action: string; detail: string }[] };
  const row = audit.entries.find((e) => e.action === "reliable-message-delete" && e.detail.includes(doomed));
  expect(row).toMatchObject({ operator: "e2e-operator" });
  expect(JSON.parse(row!.detail)).toMatchObject({ messageId: doomed, queue, phase: "WAITING_CONFIRM" });
}

/**
 * Issue 36 item 2 over HTTP: a save-and-send with `delayMs`, a confirm with `deliverAt` and a
 * prepare with `delayMs` confirmed without a time are held (SENDING, nothing sent) until their
 * time, then reach a plain reader once, each first send written no earlier than asked (the
 * service's own timestamps and the envelope's `sentAt`), and are acknowledged; a prepare with both
 * fields is 400.
 */
export async function delayedDeliveryOverHttp(w: RmWorld, prefix: string): Promise<void> {
  const queue = w.q.checkBack;
  const [later, at, prepared] = [`${queue}-delayed`, `${queue}-at`, `${queue}-prepared`];
  const reader = await consumer(w, `${prefix}${queue}`);
  await warmUp(w, queue, [reader]);
  // The confirm's deliverAt is taken by the producer just before that call, so it is still ahead
  // when the service reads it however long the process took to start on a loaded machine.
  const answers = await produce(w.url, [
    { op: "prepare", id: later, queue, body: "in 3 s", delayMs: 3_000, confirm: true },
    { op: "prepare", id: at, queue, body: "at a time", checkDelayMs: 600_000 },
    // The time given at the prepare: its confirm gives none, so it holds.
    { op: "prepare", id: prepared, queue, body: "in 15 s from the prepare", delayMs: 15_000, checkDelayMs: 600_000 },
    { op: "prepare", id: `${queue}-bad`, queue, body: "both", delayMs: 5_000, deliverAt: 1 },
    { op: "confirm", id: at, deliverInMs: 15_000 },
    { op: "confirm", id: prepared },
  ]);
  expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 400, 200, 200]);
  const deliverAt = (answers[4] as { deliverAt?: number }).deliverAt!;
  const duePrepared = answers[2]!.body.message.deliverAt as number;
  expect(answers[2]!.body.message).toMatchObject({ status: "WAITING_CONFIRM", sendCount: 0 });
  expect(duePrepared).toBeGreaterThan((answers[2]!.body.message.createdAt as number) + 14_000);
  expect(answers[4]).toMatchObject({ body: { applied: true, message: { status: "SENDING", sendCount: 0, nextCheckAt: deliverAt } } });
  expect(answers[5]).toMatchObject({ body: { applied: true, message: { status: "SENDING", sendCount: 0, nextCheckAt: duePrepared } } });
  const createdAt = answers[0]!.body.message.createdAt as number;
  // The delay counts from the call (a few ms before the row's createdAt on a loaded machine).
  const dueLater = answers[0]!.body.message.nextCheckAt as number;
  expect(answers[0]!.body.message).toMatchObject({ status: "SENDING", sendCount: 0 });
  expect(dueLater).toBeGreaterThan(createdAt + 2_000);
  expect(dueLater).toBeLessThanOrEqual(createdAt + 3_000);
  for (const [id, due] of [[later, dueLater], [at, deliverAt], [prepared, duePrepared]] as const) {
    const m = await waitAcknowledgedBy(w, reader, id, "delivered when due and acknowledged", 90_000);
    expect(m["lastSentAt"]).toBeGreaterThanOrEqual(due);
    expect(reader.of(id).filter((r) => r.effect)).toHaveLength(1);
    expect(reader.of(id)[0]!.record.value).toMatchObject({ sendCount: 1 });
    expect(reader.of(id)[0]!.record.value!["sentAt"]).toBeGreaterThanOrEqual(due);
  }
}

/** Stops and starts the broker (the suite owns it: see bench/fault/services.ts). */
export interface BrokerControl {
  stop(): Promise<void>;
  start(): Promise<void>;
}

/**
 * Flow 6: the broker stopped for longer than the whole resend schedule. Sends that never reached
 * the broker are an outage, not attempts: nothing goes DEAD, no send is counted, and once the
 * broker is back every message is delivered and acknowledged.
 */
export async function brokerOutageMakesNothingDead(w: RmWorld, broker: BrokerControl, downMs: number): Promise<{ stopMs: number; downMs: number; readyMs: number; deliveredMs: number }> {
  expect(downMs).toBeGreaterThan(RESEND_SCHEDULE_MS);
  const queue = w.q.outage;
  const before = await consumer(w, `rmq.${queue}`);
  await warmUp(w, queue, [before]);
  // The consumer is redeployed after the outage; a plain kafkajs consumer is not what is tested here.
  await before.stop();
  const deadBefore = await metric(w.url, "msgx_reliable_dead_letters_total");
  const ids = [1, 2, 3, 4, 5].map((i) => `${queue}-${i}`);

  const t0 = Date.now();
  await broker.stop();
  const t1 = Date.now();
  let t2 = t1;
  try {
    const answers = await produce(w.url, [
      ...ids.slice(0, 3).map((id) => ({ op: "prepare", id, queue, body: `during the outage ${id}`, confirm: true })),
      ...ids.slice(3).flatMap((id) => [
        { op: "prepare", id, queue, body: `during the outage ${id}` },
        { op: "confirm", id },
      ]),
    ]);
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201, 200, 201, 200]);
    await sleep(Math.max(0, t1 + downMs - Date.now()));
    // Longer than the whole schedule, and not one send counted: none reached the broker.
    for (const id of ids) expect(await getMessage(w.url, id)).toMatchObject({ status: "SENDING", dead: false, sendCount: 1 });
  } finally {
    t2 = Date.now();
    await broker.start();
  }
  const after = await consumer(w, `rmq.${queue}`);
  await after.ready();
  const readyMs = Date.now() - t2;
  for (const id of ids) expect(await waitAcknowledgedBy(w, after, id, "acknowledged after the outage", 120_000)).toMatchObject({ dead: false });
  const deliveredMs = Date.now() - t2;
  for (const id of ids) {
    expect(after.of(id).filter((r) => r.effect)).toHaveLength(1);
    // The first send the broker took is send 1: the outage counted none.
    expect(after.of(id)[0]!.record.value?.["sendCount"]).toBe(1);
  }
  // Zero DEAD from the outage. The resend schedule starts again when the broker is back, so a
  // message may still go DEAD legitimately if the redeployed consumer joins its group later than
  // the whole schedule (a loaded machine after a broker restart): then the consumer saw all
  // maxSends sends, each one the broker took, and acknowledged the dead message late.
  const deadAfterSchedule = ids.filter((id) => after.of(id).some((r) => r.record.value?.["sendCount"] === MAX_SENDS)).length;
  const deadNow = await metric(w.url, "msgx_reliable_dead_letters_total");
  expect(deadNow - deadBefore, `dead letters during the outage flow (consumer ready ${readyMs} ms after the broker start)`).toBeLessThanOrEqual(deadAfterSchedule);
  const res = await fetch(new URL(`/admin/reliable-messages?queue=${encodeURIComponent(queue)}&dead=true`, w.url));
  expect(((await res.json()) as { items: unknown[] }).items).toEqual([]);
  return { stopMs: t1 - t0, downMs: t2 - t1, readyMs, deliveredMs };
}
