/**
 * Issue 36 item 3, per-key order, as its users would meet it: a producer process (HTTP only)
 * interleaving three keys on a queue with `orderByKey`, and a plain consumer process that rejects
 * every delivery of one key's first message (so it goes DEAD and holds its key), acknowledging the
 * rest over HTTP. Run by the PostgreSQL + Kafka suite and the embedded one.
 */
import { expect } from "vitest";
import { eventually } from "../runner-process.js";
import { metric, produce, RM_TOKEN, startConsumer } from "./rm-processes.js";
import { waitMessage, waitReportedAcks, type RmWorld } from "./rm-flows.js";

/** `GET /rm/v1/messages/<id>` whole: the message and what it is held behind. */
async function show(url: string, id: string): Promise<{ message: Record<string, any>; heldBehind: string | null }> {
  const res = await fetch(new URL(`/rm/v1/messages/${encodeURIComponent(id)}`, url), { headers: { authorization: `Bearer ${RM_TOKEN}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as { message: Record<string, any>; heldBehind: string | null };
}

const acknowledged = (m: Record<string, any>) => m["status"] === "ACKNOWLEDGED";

export async function keyOrderOverHttp(w: RmWorld): Promise<void> {
  const queue = w.q.ordered;
  const topic = `rmq.${queue}`;
  const reader = await startConsumer(topic, w.source(topic, `g-ordered-${w.consumers.length}`), { url: w.url, waitReady: false, failTimes: 100, onlySuffix: "-slow" });
  w.consumers.push(reader);
  const warm = `${queue}-warm-up`;
  expect((await produce(w.url, [{ op: "prepare", id: warm, queue, body: "warm-up", key: "warm", confirm: true }]))[0]!.status).toBe(201);
  await waitMessage(w, warm, acknowledged, "acknowledged (warm-up)");
  await reader.ready();

  const id = (key: string, n: number) => `${queue}-${key}${n}${key === "A" && n === 1 ? "-slow" : ""}`;
  const [a1, a2, a3, b1, b2, b3, c1, c2, c3] = ["A", "B", "C"].flatMap((k) => [1, 2, 3].map((n) => id(k, n)));
  const send = (i: string, key: string) => ({ op: "prepare", id: i, queue, body: i, key, confirm: true });
  const answers = await produce(w.url, [
    { op: "prepare", id: `${queue}-no-key`, queue, body: "x" },
    { op: "prepare", id: `${queue}-nul-key`, queue, body: "x", key: "a\u0000b" },
    { op: "prepare", id: a1, queue, body: a1, key: "A" },
    send(b1!, "B"),
    // Prepared before A2 but confirmed after it: the order is the confirm order.
    { op: "prepare", id: a3, queue, body: a3, key: "A" },
    send(c1!, "C"),
    { op: "confirm", id: a1 },
    send(a2!, "A"),
    send(b2!, "B"),
    { op: "confirm", id: a3 },
    send(c2!, "C"),
    send(b3!, "B"),
    send(c3!, "C"),
  ]);
  expect(answers.map((a) => a.status)).toEqual([400, 400, 201, 201, 201, 201, 200, 201, 201, 200, 201, 201, 201]);
  expect(answers[0]!.body.message).toMatch(/key is required/);
  expect(answers[1]!.body.message).toMatch(/key/);

  // Key A's first message is rejected to DEAD; B and C flow to the end meanwhile.
  await waitMessage(w, a1!, (m) => m["dead"] === true, "DEAD after its rejects");
  for (const i of [b3!, c3!]) await waitMessage(w, i, acknowledged, "acknowledged while key A is held", 90_000);
  for (const i of [a2!, a3!]) {
    const { message, heldBehind } = await show(w.url, i);
    expect(message).toMatchObject({ status: "SENDING", sendCount: 0, key: "A" });
    expect(heldBehind).toBe(a1);
    expect(reader.of(i)).toEqual([]);
  }
  expect((await show(w.url, b3!)).heldBehind).toBeNull();
  // The gauge is read from the store at most every 15 s: wait for a fresh read.
  await eventually(async () => ((await metric(w.url, "msgx_reliable_held_messages", { behind: "dead" })) === 2 ? true : undefined), 40_000, "held_messages{behind=dead} 2");

  // The operator settles the DEAD message (here: acknowledges it); the key moves on, in order.
  expect((await produce(w.url, [{ op: "ack", id: a1 }]))[0]!.status).toBe(200);
  await waitMessage(w, a3!, acknowledged, "delivered after A2 and acknowledged", 90_000);
  await waitReportedAcks([reader], [a2!, a3!, b1!, b2!, b3!, c1!, c2!, c3!]);

  const records = reader.records().filter((r) => r.record.value?.["consumerQueue"] === queue && !String(r.record.value?.["messageId"]).endsWith("-warm-up"));
  for (const [key, ids] of [["A", [a1, a2, a3]], ["B", [b1, b2, b3]], ["C", [c1, c2, c3]]] as const) {
    const ofKey = records.filter((r) => r.record.value?.["key"] === key);
    // One at a time, in confirm order: once a message of the key is read, no older one comes again.
    const order = ofKey.map((r) => ids.indexOf(r.record.value!["messageId"]));
    expect(order, key).toEqual([...order].sort((x, y) => x - y));
    expect([...new Set(order)], key).toEqual([0, 1, 2]);
    // Every record of the key is keyed by it: one key, one partition.
    expect(new Set(ofKey.map((r) => r.record.key)), key).toEqual(new Set([key]));
    // A message's successor is read only after its last answer (B, C: the ack; A1: the operator's).
    for (const i of [0, 1]) {
      const last = ofKey.filter((r) => r.record.value!["messageId"] === ids[i]).at(-1)!;
      if (!(key === "A" && i === 0)) expect(last.answer, `${ids[i]}`).toEqual({ op: "ack", status: 200 });
    }
  }
  expect(records.filter((r) => r.record.value!["messageId"] === a1).map((r) => r.answer?.op)).toEqual(["reject", "reject", "reject"]);
}
