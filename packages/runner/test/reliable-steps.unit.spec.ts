/**
 * The reliable-message service as the runner hosts it (issue 20), over the in-memory fakes: the
 * relay creates a queue's topics before its first send and waits (without losing anything) while
 * it cannot, delivers dead letters to `rmq-dlq.<queue>`; the hosted check-back asks each queue's
 * HTTP checker (or none) and applies the answer; recovery counts only sends the broker took; the
 * retention job purges finished messages. No broker, database or HTTP server but the checker's.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { RouterStep } from "@msgx/core";
import { InMemoryBroker, InMemoryOutboxStore, InMemoryPipelineStore, ManualClock, RecordingLogger } from "@msgx/core/testing";
import { InMemoryReliableMessageStore } from "@msgx/reliable/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppParts } from "../src/app/app-parts.js";
import { loadConfig } from "../src/config/load-config.js";
import { createMaintenanceJobs } from "../src/jobs/maintenance-schedule.js";
import { createReliableHost } from "../src/reliable/reliable-host.js";
import { reliableSteps } from "../src/reliable/reliable-steps.js";
import { FakeQueueTopics } from "./fake-queue-topics.js";


let checker: Server;
let checkerUrl = "";
const verdicts = new Map<string, string>();
const calls: { messageId: string; auth: string | undefined }[] = [];
beforeAll(async () => {
  checker = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const { messageId } = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { messageId: string };
      calls.push({ messageId, auth: req.headers.authorization });
      const verdict = verdicts.get(messageId);
      if (verdict === undefined) res.writeHead(500).end("down");
      else res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ verdict }));
    });
  });
  await new Promise<void>((resolve) => checker.listen(0, "127.0.0.1", resolve));
  checkerUrl = `http://127.0.0.1:${(checker.address() as AddressInfo).port}/check`;
});
afterAll(async () => {
  await new Promise((resolve) => checker.close(resolve));
});

function world(reliable: Record<string, unknown> = {}, topics: FakeQueueTopics | undefined = new FakeQueueTopics()) {
  const clock = new ManualClock();
  const db = new InMemoryPipelineStore(clock);
  const logger = new RecordingLogger();
  const broker = new InMemoryBroker();
  const cfg = loadConfig({ env: {}, overrides: Object.fromEntries(Object.entries(reliable).map(([k, v]) => [`reliable.${k}`, v])) });
  const parts = {
    kind: "real",
    outbox: new InMemoryOutboxStore(db),
    reliable: new InMemoryReliableMessageStore(clock, db),
    delivery: broker,
    ...(topics ? { queueTopics: topics } : {}),
  } as unknown as AppParts;
  const ctx = { parts, config: cfg, logger, clock };
  const host = createReliableHost(ctx);
  const steps = new Map(reliableSteps(ctx, host).map((s) => [s.name, s] as const));
  const run = (name: string) => (steps.get(name) as RouterStep).run(new AbortController().signal);
  return { clock, db, logger, broker, parts, host, run, topics, config: cfg };
}

describe("hosted reliable steps", () => {
  it("creates rmq.<queue> and rmq-dlq.<queue> before a queue's first send, and delivers", async () => {
    const w = world();
    await w.host.service.saveAndSend({ messageId: "a-1", consumerQueue: "orders", body: "x" });
    const relay = await w.run("reliable-relay");
    expect(relay.after).toBe(1_000);
    expect(w.topics!.created).toEqual(["rmq.orders", "rmq-dlq.orders"]);
    expect(w.broker.records("rmq.orders").map((r) => r.key)).toEqual(["a-1"]);
  });

  it("keeps sends in the outbox while the topics cannot be created, warning once, and sends them once they can", async () => {
    const w = world();
    w.topics!.down = true;
    await w.host.service.saveAndSend({ messageId: "b-1", consumerQueue: "orders", body: "x" });
    await w.run("reliable-relay");
    await w.run("reliable-relay");
    expect(w.broker.records("rmq.orders")).toHaveLength(0);
    expect(w.logger.at("warn").filter((m) => m.includes("cannot create the queue's topics"))).toHaveLength(1);
    w.topics!.down = false;
    await w.run("reliable-relay");
    expect(w.broker.records("rmq.orders").map((r) => r.key)).toEqual(["b-1"]);
  });

  it("creates no topic when reliable.createTopics is false, nor with JSONL delivery (no topics port)", async () => {
    const off = world({ createTopics: "false" });
    await off.host.service.saveAndSend({ messageId: "c-1", consumerQueue: "orders", body: "x" });
    await off.run("reliable-relay");
    expect(off.topics!.created).toEqual([]);
    expect(off.broker.records("rmq.orders")).toHaveLength(1);
    const jsonl = world({}, undefined);
    await jsonl.host.service.saveAndSend({ messageId: "c-2", consumerQueue: "orders", body: "x" });
    await jsonl.run("reliable-relay");
    expect(jsonl.broker.records("rmq.orders")).toHaveLength(1);
  });

  it("relays a dead letter to rmq-dlq.<queue>, and replays it to rmq.<queue>", async () => {
    const w = world();
    await w.host.service.saveAndSend({ messageId: "d-1", consumerQueue: "orders", body: "x" });
    await w.run("reliable-relay");
    await w.host.admin.markDead("d-1");
    await w.run("reliable-relay");
    const dlq = w.broker.records("rmq-dlq.orders");
    expect(dlq).toHaveLength(1);
    expect(JSON.parse(dlq[0]!.value!)).toMatchObject({ messageId: "d-1", deadReason: expect.any(String) });
    expect(await w.host.metrics.render()).toMatch(/^msgx_reliable_dead_letters_total 1$/m);
    expect((await w.host.admin.resendDead("orders")).resent).toBe(1);
    await w.run("reliable-relay");
    expect(w.broker.records("rmq.orders").map((r) => r.key)).toEqual(["d-1", "d-1"]);
  });

  it("checks back with each queue's HTTP checker and its token, applies confirm and cancel, and keeps an unanswered message", async () => {
    const w = world({
      checkAfterMs: "1000",
      checkIntervalMs: "1000",
      queues: JSON.stringify({ pay: { checkerUrl, checkerToken: "pay-secret" } }),
    });
    verdicts.set("e-yes", "confirm");
    verdicts.set("e-no", "cancel");
    for (const id of ["e-yes", "e-no", "e-down"]) await w.host.service.saveWaitingConfirm({ messageId: id, consumerQueue: "pay", body: id });
    await w.host.service.saveWaitingConfirm({ messageId: "e-orphan", consumerQueue: "nochecker", body: "x" });
    w.clock.advance(1_000);
    const step = await w.run("reliable-check-back");
    expect(step.wake).toEqual(["reliable-relay"]);
    expect(calls.filter((c) => c.messageId.startsWith("e-")).map((c) => [c.messageId, c.auth]).sort()).toEqual([
      ["e-down", "Bearer pay-secret"],
      ["e-no", "Bearer pay-secret"],
      ["e-yes", "Bearer pay-secret"],
    ]);
    expect((await w.host.service.get("e-yes"))?.status).toBe("SENDING");
    expect((await w.host.service.get("e-no"))?.status).toBe("CANCELLED");
    expect(await w.host.service.get("e-down")).toMatchObject({ status: "WAITING_CONFIRM", checkCount: 1 });
    expect(await w.host.service.get("e-orphan")).toMatchObject({ status: "WAITING_CONFIRM", checkCount: 1 });
    const text = await w.host.metrics.render();
    for (const [outcome, n] of [["confirm", 1], ["cancel", 1], ["error", 1], ["no-checker", 1]] as const) expect(text).toContain(`msgx_reliable_checkbacks_total{outcome="${outcome}"} ${n}`);
    expect(text).toContain('msgx_reliable_messages{phase="WAITING_CONFIRM"} 2');
  });

  it("alerts from maxChecks on, and holds the message for review with afterMaxChecks dead", async () => {
    const w = world({ checkAfterMs: "0", checkIntervalMs: "10", maxCheckIntervalMs: "10", maxChecks: "2", afterMaxChecks: "dead", defaultCheckerUrl: checkerUrl });
    await w.host.service.saveWaitingConfirm({ messageId: "f-down", consumerQueue: "any", body: "x" });
    for (let i = 0; i < 3; i++) {
      w.clock.advance(10);
      await w.run("reliable-check-back");
    }
    expect(await w.host.service.get("f-down")).toMatchObject({ status: "WAITING_CONFIRM", dead: true });
    expect(await w.host.metrics.render()).toContain('msgx_reliable_alerts_total{kind="checkback"} 1');
    expect(w.logger.at("error").some((m) => m.includes("held for review"))).toBe(true);
  });

  it("recovery counts no send the broker never took: a message stays SENDING past its whole schedule while its row is pending", async () => {
    const w = world({ resendWaitsMs: "1000", maxSends: "2", outageRecheckMs: "500" });
    await w.host.service.saveAndSend({ messageId: "g-1", consumerQueue: "orders", body: "x" });
    for (let i = 0; i < 10; i++) {
      w.clock.advance(1_000);
      await w.run("reliable-recovery");
    }
    expect(await w.host.service.get("g-1")).toMatchObject({ status: "SENDING", dead: false, sendCount: 1 });
    // Once delivered, the wait runs from the broker's acknowledgement, then a resend, then DEAD.
    await w.run("reliable-relay");
    for (let i = 0; i < 4; i++) {
      w.clock.advance(1_000);
      await w.run("reliable-recovery");
      await w.run("reliable-relay");
    }
    expect(await w.host.service.get("g-1")).toMatchObject({ dead: true, sendCount: 2 });
    expect(await w.host.metrics.render()).toMatch(/^msgx_reliable_dead_letters_total 1$/m);
  });

  it("purges finished messages past the retention in the maintenance job, and no live one", async () => {
    const w = world({ "retention.finishedMs": "60000" });
    await w.host.service.saveAndSend({ messageId: "h-acked", consumerQueue: "orders", body: "x" });
    await w.host.service.acknowledge("h-acked");
    await w.host.service.saveWaitingConfirm({ messageId: "h-cancelled", consumerQueue: "orders", body: "x" });
    await w.host.service.cancel("h-cancelled");
    await w.host.service.saveWaitingConfirm({ messageId: "h-live", consumerQueue: "orders", body: "x" });
    const maintenance = createMaintenanceJobs(
      { parts: { ...w.parts, maintenance: {}, store: {}, mailbox: {} } as unknown as AppParts, config: { ...w.config, shadow: true }, logger: w.logger, clock: w.clock },
      { reliable: w.host.service, store: {} as never },
    );
    const job = maintenance.steps.find((s) => s.name === "reliable-retention")!;
    expect(job).toBeDefined();
    // The first run is 2 minutes after the job's first step; by then both finished messages are older than the retention.
    expect((await job.run(new AbortController().signal)).after).toBe(2 * 60_000);
    expect(await w.host.service.get("h-acked")).toBeDefined();
    w.clock.advance(2 * 60_000);
    expect((await job.run(new AbortController().signal)).after).toBe(10 * 60_000);
    expect(await w.host.service.get("h-acked")).toBeUndefined();
    expect(await w.host.service.get("h-cancelled")).toBeUndefined();
    expect(await w.host.service.get("h-live")).toBeDefined();
    // The id is free again.
    await w.host.service.saveWaitingConfirm({ messageId: "h-acked", consumerQueue: "orders", body: "new" });
  });
});
