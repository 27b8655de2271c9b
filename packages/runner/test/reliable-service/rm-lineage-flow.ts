/**
 * Issue 36 item 11 for reliable messages, run by both reliable-service e2e suites: "why is this
 * message DEAD" answered by its lineage. The producer (producer.mjs) prepares and confirms over HTTP,
 * a plain kafkajs consumer (consumer.mjs) rejects every delivery until the service gives up; the
 * lineage over `/admin/reliable-messages/<id>/lineage` and `msgx reliable lineage` lists each step
 * with its cause, newest first, in pages.
 */
import { expect } from "vitest";
import { runCli } from "../runner-process.js";
import { consumer, dead, waitMessage, warmUp, type RmWorld } from "./rm-flows.js";
import { produce } from "./rm-processes.js";

type Entry = Record<string, any>;

export async function deadMessageLineage(w: RmWorld): Promise<void> {
  const queue = `${w.q.poison}.lineage`;
  const reader = await consumer(w, `rmq.${queue}`, { failTimes: 3 });
  await warmUp(w, queue, [reader]);
  const id = `${queue}-1`;
  const [prepared, confirmed] = await produce(w.url, [
    { op: "prepare", id, queue, body: "why dead" },
    { op: "confirm", id },
  ]);
  expect([prepared!.status, confirmed!.status]).toEqual([201, 200]);
  await waitMessage(w, id, dead, "DEAD after three rejects");

  const res = await fetch(new URL(`/admin/reliable-messages/${encodeURIComponent(id)}/lineage`, w.url));
  expect(res.status).toBe(200);
  const lineage = (await res.json()) as { messageId: string; phase: string; entries: Entry[]; next: number | null };
  expect(lineage).toMatchObject({ messageId: id, phase: "DEAD", next: null });
  // Newest first, every version there: one per change, or a run of repeats per entry.
  const oldestFirst = [...lineage.entries].reverse();
  oldestFirst.forEach((e, i) => expect(e.version - e.repeats).toBe(i === 0 ? 0 : oldestFirst[i - 1]!.version));
  // The recovery job's looks while a send waits for its acknowledgement are entries too; the story is the rest.
  const story = oldestFirst.filter((e) => e.event !== "rescheduled");
  const route = (e: Entry): string => (e.cause.kind === "api" ? e.cause.caller.route : e.cause.kind);
  expect(story.slice(0, 2).map((e) => [e.from, e.to, e.event, route(e), e.detail])).toEqual([
    ["ABSENT", "WAITING_CONFIRM", "saved", "POST /rm/v1/messages", null],
    ["WAITING_CONFIRM", "SENDING", "confirmed", "POST /rm/v1/messages/:id/confirm", "by producer, send #1"],
  ]);
  // Each of the consumer's three rejects, the last one DEAD, each after a send of its own (the
  // redelivery; on a loaded machine a resend after the acknowledgement wait may come first).
  const rejects = story.filter((e) => e.event === "rejected");
  expect(rejects.map((e) => [e.from, e.to, route(e)])).toEqual([
    ["SENDING", "SENDING", "POST /rm/v1/messages/:id/reject"],
    ["SENDING", "SENDING", "POST /rm/v1/messages/:id/reject"],
    ["SENDING", "DEAD", "POST /rm/v1/messages/:id/reject"],
  ]);
  expect(rejects.map((e) => e.detail)).toEqual([
    expect.stringMatching(/^reject #1: handler failed on delivery \d+$/),
    expect.stringMatching(/^reject #2: handler failed on delivery \d+$/),
    expect.stringMatching(/^reject #3 \(the last allowed\): handler failed on delivery \d+$/),
  ]);
  expect(story.at(-1)).toBe(rejects[2]);
  for (const [a, b] of [[rejects[0]!, rejects[1]!], [rejects[1]!, rejects[2]!]] as const) {
    const between = story.slice(story.indexOf(a) + 1, story.indexOf(b));
    expect(between.map((e) => e.event)).toContain("redelivered");
    expect(between.every((e) => e.event === "redelivered" || e.event === "resent")).toBe(true);
    expect(between.every((e) => e.cause.kind === "recovery")).toBe(true);
  }
  for (const e of story.filter((x) => x.cause.kind === "api")) expect(e.cause.caller).toMatchObject({ requestId: expect.any(String), remoteAddress: expect.stringMatching(/127\.0\.0\.1/) });

  const table = await runCli(["reliable", "lineage", id, "--url", w.url]);
  expect(table.code, table.output).toBe(0);
  const lines = table.output.trim().split("\n");
  expect(lines[0]).toMatch(/^VERSION\s+AT \(UTC\)\s+PHASE\s+EVENT\s+CAUSE\s+DETAIL$/);
  expect(lines.slice(1, -1).map((l) => l.split(/\s{2,}/)[3]).filter((e) => e !== "rescheduled")).toEqual([...story].reverse().map((e) => e.event));
  expect(lines.at(-1)).toBe(`message ${id} is DEAD`);
  const json = await runCli(["reliable", "lineage", id, "--url", w.url, "--json"]);
  expect(JSON.parse(json.output)).toEqual(lineage);

  // Paging as the flight lineage: `next` is the `before` of the older page; the pages together are the whole.
  const page = async (q: string): Promise<{ status: number; body: { entries: Entry[]; next: number | null } }> => {
    const r = await fetch(new URL(`/admin/reliable-messages/${encodeURIComponent(id)}/lineage${q}`, w.url));
    return { status: r.status, body: (await r.json()) as { entries: Entry[]; next: number | null } };
  };
  const first = await page("?limit=2");
  expect(first.status).toBe(200);
  expect(first.body).toEqual({ messageId: id, phase: "DEAD", entries: lineage.entries.slice(0, 2), next: lineage.entries[1]!.version });
  const rest = await page(`?limit=500&before=${first.body.next}`);
  expect([...first.body.entries, ...rest.body.entries]).toEqual(lineage.entries);
  expect(rest.body.next).toBeNull();
  for (const bad of ["?limit=0", "?limit=501", "?limit=x", "?before=0", "?before=-3"]) expect((await page(bad)).status, bad).toBe(400);
  const paged = await runCli(["reliable", "lineage", id, "--url", w.url, "--limit", "2"]);
  expect(paged.code, paged.output).toBe(0);
  expect(paged.output.trim().split("\n").slice(-2)).toEqual([`message ${id} is DEAD`, `older entries: --before ${first.body.next}`]);
  const badLimit = await runCli(["reliable", "lineage", id, "--url", w.url, "--limit", "0"]);
  expect(badLimit.code).toBe(2);

  expect((await fetch(new URL(`/admin/reliable-messages/${encodeURIComponent(`${id}-never`)}/lineage`, w.url))).status).toBe(404);
  expect((await fetch(new URL(`/admin/reliable-messages/${"x".repeat(129)}/lineage`, w.url))).status).toBe(400);
  const unknown = await runCli(["reliable", "lineage", `${id}-never`, "--url", w.url]);
  expect([unknown.code, unknown.output]).toEqual([2, expect.stringContaining(`no message ${id}-never is stored`)]);
}
