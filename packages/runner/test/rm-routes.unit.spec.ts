/**
 * `/rm/v1`, the reliable-message service over HTTP (issue 20), through fastify's inject on the
 * runner's own server over the in-memory store: every answer of the design — 201/200 prepare,
 * idempotent confirm, 400 bad body, 401 without its token, 404 unknown id, 409 confirm after
 * cancel and reuse after ack, 422 unknown queue without topic creation — and the admin routes'
 * client mistakes as 4xx, none logged at error.
 */
import { RecoveryJob, ReliableMessageService } from "@msgx/reliable";
import { MsgxError, type Logger } from "@msgx/core";
import { InMemoryOutboxStore, InMemoryPipelineStore, ManualClock, RecordingLogger } from "@msgx/core/testing";
import { InMemoryReliableMessageStore } from "@msgx/reliable/testing";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import type { QueueTopicsPort } from "../src/app/app-parts.js";
import type { HttpContext } from "../src/http/http-context.js";
import { createHttpServer } from "../src/http/http-server.js";
import { directReliableAdmin } from "../src/reliable/reliable-admin.js";
import { directReliableApi } from "../src/reliable/reliable-api.js";
import { createReliableMetrics } from "../src/reliable/reliable-metrics.js";
import { injectJson, pipelineLessContext } from "./route-spec.js";

const RM_TOKEN = "rm-token-for-producers";
const ADMIN_TOKEN = "admin-token-for-operators";
const RM = { authorization: `Bearer ${RM_TOKEN}` };
const ADMIN = { authorization: `Bearer ${ADMIN_TOKEN}` };

/** Topics that exist on the fake broker: only `rmq.orders`, `acme.orders` (and what `ensure` created); `down` = the broker does not answer. */
class FakeTopics implements QueueTopicsPort {
  readonly present = new Set(["rmq.orders", "rmq-dlq.orders", "acme.orders"]);
  down = false;
  async ensure(topics: readonly string[]): Promise<void> {
    if (this.down) throw new MsgxError("DEPENDENCY_UNAVAILABLE", "Kafka is unavailable (connect): ECONNREFUSED");
    for (const t of topics) this.present.add(t);
  }
  async exists(topic: string): Promise<boolean> {
    if (this.down) throw new MsgxError("DEPENDENCY_UNAVAILABLE", "Kafka is unavailable (connect): ECONNREFUSED");
    return this.present.has(topic);
  }
}

function world(createTopics: boolean, topicPrefix?: string) {
  const clock = new ManualClock();
  const db = new InMemoryPipelineStore(clock);
  const store = new InMemoryReliableMessageStore(clock, db);
  const logger = new RecordingLogger();
  const service = new ReliableMessageService({ store, clock, logger, options: { maxRejects: 2, rejectWaitsMs: [1_000], subscriptions: { fanout: ["a", "b", "c"] }, orderedQueues: ["ordered"] } });
  const recovery = new RecoveryJob({ service, store, clock, logger, sends: new InMemoryOutboxStore(db) });
  const metrics = createReliableMetrics(clock, () => service.countByPhase(), undefined, () => service.countDeliveries());
  let sends = 0;
  const topics = new FakeTopics();
  const api = directReliableApi({ service, metrics, topics, createTopics, ...(topicPrefix ? { topicPrefix } : {}), onSend: () => void (sends += 1) });
  const ctx = {
    ...pipelineLessContext(logger as Logger, ADMIN_TOKEN),
    metrics: async () => ({ contentType: "text/plain", body: await metrics.render() }),
    reliable: directReliableAdmin(service, { store: db, clock }),
    rm: api,
    rmToken: RM_TOKEN,
  } satisfies HttpContext;
  const app = createHttpServer(ctx);
  return { app, service, recovery, logger, clock, metrics, db, topics, sends: () => sends };
}

type World = ReturnType<typeof world>;
const apps: World["app"][] = [];
afterAll(async () => {
  for (const app of apps) await app.close();
});

const call = (w: World, method: "GET" | "POST" | "DELETE", url: string, body?: unknown, headers: Record<string, string> = RM) => injectJson(w.app, method, url, body, headers);

const prepare = (w: World, id: string, extra: Record<string, unknown> = {}, confirm = false) =>
  call(w, "POST", `/rm/v1/messages${confirm ? "?confirm=true" : ""}`, { messageId: id, queue: "orders", body: "pay 10", ...extra });

describe("/rm/v1", () => {
  let w: World;
  beforeEach(async () => {
    w = world(true);
    apps.push(w.app);
    await w.app.ready();
  });

  it("prepares (201 WAITING_CONFIRM), answers a repeat with 200, shows the message, and confirms idempotently", async () => {
    const first = await prepare(w, "m-1", { dataType: "json", headers: { "x-tenant": "t1" }, field1: "order-1", checkDelayMs: 30_000 });
    expect(first.status).toBe(201);
    expect(first.body!["message"]).toMatchObject({ messageId: "m-1", queue: "orders", consumerQueue: "orders", status: "WAITING_CONFIRM", phase: "WAITING_CONFIRM", sendCount: 0, headers: { "x-tenant": "t1" }, checkDelayMs: 30_000, field1: "order-1" });
    const again = await prepare(w, "m-1", { dataType: "json", headers: { "x-tenant": "t1" }, field1: "order-1", checkDelayMs: 30_000 });
    expect(again.status).toBe(200);
    expect(w.sends()).toBe(0);

    const shown = await call(w, "GET", "/rm/v1/messages/m-1");
    expect(shown).toMatchObject({ status: 200, body: { message: { messageId: "m-1", status: "WAITING_CONFIRM" } } });

    const confirmed = await call(w, "POST", "/rm/v1/messages/m-1/confirm");
    expect(confirmed).toMatchObject({ status: 200, body: { applied: true, message: { status: "SENDING", phase: "SENDING", sendCount: 1 } } });
    expect(w.sends()).toBe(1);
    const twice = await call(w, "POST", "/rm/v1/messages/m-1/confirm");
    expect(twice).toMatchObject({ status: 200, body: { applied: false, message: { status: "SENDING", sendCount: 1 } } });
    expect(w.sends()).toBe(1);
  });

  it("a queue with subscriptions: ack, batch ack, reject and the operator's resend and mark-dead name one (400 naming it when missing or unknown); GET shows each; ACKNOWLEDGED with the last", async () => {
    expect((await prepare(w, "f-1", { queue: "fanout" }, true)).status).toBe(201);
    expect(w.sends()).toBe(1);
    const missing = await call(w, "POST", "/rm/v1/messages/f-1/ack");
    expect(missing).toMatchObject({ status: 400, body: { code: "INVALID_MESSAGE", message: expect.stringContaining("a, b, c") } });
    expect(await call(w, "POST", "/rm/v1/messages/f-1/ack?subscription=d")).toMatchObject({ status: 400, body: { code: "INVALID_MESSAGE", message: expect.stringContaining('"d"') } });
    expect((await call(w, "POST", "/rm/v1/messages/f-1/ack?subscription=not.a.name")).status).toBe(400);
    expect(await call(w, "POST", "/rm/v1/messages/f-1/ack?subscription=a")).toMatchObject({ status: 200, body: { applied: true, message: { status: "SENDING" }, subscription: { subscription: "a", phase: "ACKNOWLEDGED" } } });
    expect(await call(w, "POST", "/rm/v1/messages/f-1/reject?subscription=b", { reason: "later" })).toMatchObject({ status: 200, body: { subscription: { subscription: "b", rejectCount: 1 } } });
    expect(await call(w, "POST", "/rm/v1/acks?subscription=b", { messageIds: ["f-1", "nope"] })).toMatchObject({ status: 200, body: { acknowledged: 1, failed: 1 } });
    expect(await call(w, "POST", "/admin/reliable-messages/f-1/mark-dead", undefined, ADMIN)).toMatchObject({ status: 400, body: { code: "INVALID_MESSAGE" } });
    expect(await call(w, "POST", "/admin/reliable-messages/f-1/mark-dead?subscription=c", undefined, ADMIN)).toMatchObject({ status: 200, body: { delivery: { subscription: "c", dead: true } } });
    const shown = await call(w, "GET", "/rm/v1/messages/f-1");
    expect((shown.body!["message"] as { subscriptions: { subscription: string; phase: string }[] }).subscriptions.map((d) => [d.subscription, d.phase])).toEqual([["a", "ACKNOWLEDGED"], ["b", "ACKNOWLEDGED"], ["c", "DEAD"]]);
    expect(await call(w, "GET", "/admin/reliable-messages/f-1", undefined, ADMIN)).toMatchObject({ status: 200, body: { subscriptions: [{ subscription: "a" }, { subscription: "b" }, { subscription: "c", phase: "DEAD" }] } });
    // The dead delivery shows on /metrics by queue and subscription; the message itself stays SENDING.
    const metrics = await w.metrics.render();
    expect(metrics).toMatch(/^msgx_reliable_deliveries\{queue="fanout",subscription="c",phase="DEAD"\} 1$/m);
    expect(metrics).toMatch(/^msgx_reliable_deliveries\{queue="fanout",subscription="a",phase="DEAD"\} 0$/m);
    expect(metrics).toMatch(/^msgx_reliable_deliveries\{queue="fanout",subscription="b",phase="ACKNOWLEDGED"\} 1$/m);
    expect(metrics).toMatch(/^msgx_reliable_messages\{phase="SENDING"\} 1$/m);
    expect(await call(w, "POST", "/admin/reliable-messages/f-1/resend?subscription=c", undefined, ADMIN)).toMatchObject({ status: 200, body: { applied: true, delivery: { dead: false, sendCount: 2 } } });
    expect(await call(w, "POST", "/rm/v1/messages/f-1/ack?subscription=c")).toMatchObject({ status: 200, body: { message: { status: "ACKNOWLEDGED", phase: "ACKNOWLEDGED" } } });
    // A queue without subscriptions refuses a name.
    await prepare(w, "f-2", {}, true);
    expect(await call(w, "POST", "/rm/v1/messages/f-2/ack?subscription=a")).toMatchObject({ status: 400, body: { message: expect.stringContaining("no subscriptions") } });
  });

  it("saves and sends in one call with ?confirm=true; a JSON body is stored as its JSON text", async () => {
    const sent = await prepare(w, "m-2", { body: { order: 2, items: [1, 2] } }, true);
    expect(sent).toMatchObject({ status: 201, body: { message: { status: "SENDING", sendCount: 1, body: '{"order":2,"items":[1,2]}' } } });
    expect(w.sends()).toBe(1);
    expect((await prepare(w, "m-2", { body: { order: 2, items: [1, 2] } }, true)).status).toBe(200);
  });

  it("per-key order: a key's second message is held (GET answers heldBehind) until the first is acknowledged; the key is the record key", async () => {
    for (const id of ["k-1", "k-2"]) expect((await prepare(w, id, { queue: "ordered", key: "order-7" }, true)).body).toMatchObject({ message: { status: "SENDING", sendCount: 0, key: "order-7" } });
    expect((await call(w, "GET", "/rm/v1/messages/k-2")).body).toMatchObject({ heldBehind: "k-1", message: { sendCount: 0 } });
    expect((await call(w, "GET", "/admin/reliable-messages/k-2", undefined, ADMIN)).body).toMatchObject({ messageId: "k-2", heldBehind: "k-1" });
    await w.recovery.step();
    expect((await call(w, "GET", "/rm/v1/messages/k-1")).body).toMatchObject({ heldBehind: null, message: { sendCount: 1 } });
    expect((await call(w, "GET", "/rm/v1/messages/k-2")).body).toMatchObject({ heldBehind: "k-1", message: { sendCount: 0 } });
    expect((await call(w, "POST", "/rm/v1/messages/k-2/ack")).status).toBe(409);
    expect((await call(w, "POST", "/rm/v1/messages/k-1/ack")).status).toBe(200);
    await w.recovery.step();
    expect((await call(w, "GET", "/rm/v1/messages/k-2")).body).toMatchObject({ heldBehind: null, message: { sendCount: 1 } });
    expect(w.db.tables.events.map((e) => e.partitionKey)).toEqual(["order-7", "order-7"]);
  });

  it("answers 400 for a body that is malformed, of the wrong shape, or breaks a rule of the message", async () => {
    const bad = async (body: unknown, pattern: RegExp, code?: string) => {
      const a = await call(w, "POST", "/rm/v1/messages", body);
      expect(a.status, JSON.stringify(body)).toBe(400);
      expect(a.body).toMatchObject({ error: "bad request", message: expect.stringMatching(pattern), ...(code ? { code } : {}) });
      expect(JSON.stringify(a.body)).not.toMatch(/at .*\.ts:\d+/);
    };
    await bad("{not json", /not JSON/);
    await bad({ queue: "orders", body: "x" }, /messageId/);
    await bad({ messageId: "m", queue: "orders" }, /body is required/);
    await bad({ messageId: "m", queue: "orders", body: "x", consumerQueue: "orders" }, /consumerQueue/);
    await bad({ messageId: "m", queue: "orders", body: "x", headers: { n: 1 } }, /header values must be strings/);
    await bad({ messageId: "m", queue: "orders", body: "x", checkDelayMs: -1 }, /checkDelayMs/);
    await bad({ messageId: "m", queue: "no spaces allowed", body: "x" }, /consumerQueue/, "INVALID_MESSAGE");
    await bad({ messageId: "m", queue: "orders", body: "x", headers: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`h${i}`, "v"])) }, /header/, "INVALID_MESSAGE");
    await bad({ messageId: "x".repeat(129), queue: "orders", body: "x" }, /messageId/, "INVALID_MESSAGE");
    // PostgreSQL stores no NUL in text or jsonb: refused where the body is read, naming the field.
    await bad({ messageId: "m", queue: "orders", body: "a\u0000b" }, /body field "body" holds a NUL character/);
    await bad({ messageId: "m", queue: "orders", body: "x", headers: { h: "v\u0000" } }, /field "h" holds a NUL character/);
    await bad({ messageId: "m", queue: "orders", body: "x", headers: { "h\u0000": "v" } }, /NUL character/);
    await bad({ messageId: "m", queue: "orders", body: "x", key: "k\u0000" }, /field "key" holds a NUL character/);
    await bad({ messageId: "m", queue: "orders", body: "x", key: "k".repeat(129) }, /key/, "INVALID_MESSAGE");
    await bad({ messageId: "m", queue: "orders", body: "x", key: 7 }, /key/);
    await bad({ messageId: "m", queue: "ordered", body: "x" }, /key is required on queue ordered/, "INVALID_MESSAGE");
    const noReason = await call(w, "POST", "/rm/v1/messages/m/reject", {});
    expect(noReason).toMatchObject({ status: 400, body: { message: expect.stringMatching(/reason/) } });
  });

  it("answers 401 without its token, and with the admin token: /rm/v1 has its own", async () => {
    expect((await call(w, "GET", "/rm/v1/messages/m-1", undefined, {})).status).toBe(401);
    expect((await call(w, "GET", "/rm/v1/messages/m-1", undefined, ADMIN)).status).toBe(401);
    const anonymous = await call(w, "POST", "/rm/v1/messages", { messageId: "m", queue: "orders", body: "x" }, {});
    expect(anonymous).toMatchObject({ status: 401, body: { error: "unauthorized" } });
    expect(await w.service.get("m")).toBeUndefined();
  });

  it("answers 404 for an unknown id: get, confirm, cancel, ack, reject", async () => {
    expect(await call(w, "GET", "/rm/v1/messages/nobody")).toMatchObject({ status: 404, body: { code: "NOT_FOUND" } });
    for (const op of ["confirm", "cancel", "ack"]) expect((await call(w, "POST", `/rm/v1/messages/nobody/${op}`)).status, op).toBe(404);
    expect((await call(w, "POST", "/rm/v1/messages/nobody/reject", { reason: "x" })).status).toBe(404);
  });

  it("cancels idempotently, and a confirm after the cancel is 409 CONFLICT", async () => {
    await prepare(w, "m-3");
    expect(await call(w, "POST", "/rm/v1/messages/m-3/cancel")).toMatchObject({ status: 200, body: { applied: true, message: { status: "CANCELLED" } } });
    expect(await call(w, "POST", "/rm/v1/messages/m-3/cancel")).toMatchObject({ status: 200, body: { applied: false } });
    expect(await call(w, "POST", "/rm/v1/messages/m-3/confirm")).toMatchObject({ status: 409, body: { error: "conflict", code: "CONFLICT" } });
    expect(w.sends()).toBe(0);
  });

  it("refuses 409 the reuse of an acknowledged id, and an ack of an unsent message or a cancel of a sent one", async () => {
    await prepare(w, "m-4", {}, true);
    expect(await call(w, "POST", "/rm/v1/messages/m-4/ack")).toMatchObject({ status: 200, body: { applied: true, message: { status: "ACKNOWLEDGED" } } });
    expect(await call(w, "POST", "/rm/v1/messages/m-4/ack")).toMatchObject({ status: 200, body: { applied: false } });
    expect(await prepare(w, "m-4", {}, true)).toMatchObject({ status: 409, body: { code: "ALREADY_EXISTS" } });
    expect(await prepare(w, "m-4")).toMatchObject({ status: 409, body: { code: "ALREADY_EXISTS" } });
    await prepare(w, "m-5");
    expect(await call(w, "POST", "/rm/v1/messages/m-5/ack")).toMatchObject({ status: 409, body: { code: "ILLEGAL_STATE" } });
    await call(w, "POST", "/rm/v1/messages/m-5/confirm");
    expect(await call(w, "POST", "/rm/v1/messages/m-5/cancel")).toMatchObject({ status: 409, body: { code: "ILLEGAL_STATE" } });
    expect(await prepare(w, "m-5", { body: "other content" })).toMatchObject({ status: 409, body: { code: "ALREADY_EXISTS" } });
  });

  it("records a consumer's rejects, DEAD at the budget, and replays a queue's dead letters", async () => {
    await prepare(w, "m-6", {}, true);
    const first = await call(w, "POST", "/rm/v1/messages/m-6/reject", { reason: "handler threw" });
    expect(first).toMatchObject({ status: 200, body: { applied: true, message: { rejectCount: 1, lastError: "handler threw", dead: false } } });
    // Recovery redelivers after rejectWaitsMs; the second reject (maxRejects 2) makes it DEAD.
    w.clock.advance(1_000);
    expect((await w.recovery.step()).redelivered).toBe(1);
    const second = await call(w, "POST", "/rm/v1/messages/m-6/reject", { reason: "handler threw again" });
    expect(second).toMatchObject({ status: 200, body: { applied: true, message: { rejectCount: 2, dead: true, phase: "DEAD" } } });
    expect(await w.metrics.render()).toMatch(/^msgx_reliable_dead_letters_total 1$/m);
    expect(await call(w, "POST", "/rm/v1/messages/m-6/reject", { reason: "late" })).toMatchObject({ status: 200, body: { applied: false } });

    const replay = await call(w, "POST", "/rm/v1/queues/orders/replay-dead");
    expect(replay).toMatchObject({ status: 200, body: { resent: 1 } });
    expect((await call(w, "GET", "/rm/v1/messages/m-6")).body!["message"]).toMatchObject({ status: "SENDING", dead: false, rejectCount: 0 });
    expect(await call(w, "POST", "/rm/v1/queues/nobody/replay-dead")).toMatchObject({ status: 200, body: { resent: 0 } });
  });

  it("counts rejects in its metrics, with bounded labels", async () => {
    await prepare(w, "m-7", {}, true);
    await call(w, "POST", "/rm/v1/messages/m-7/reject", { reason: "boom" });
    const text = await w.metrics.render();
    expect(text).toMatch(/^msgx_reliable_rejects_total 1$/m);
    expect(text).toMatch(/^msgx_reliable_messages\{phase="SENDING"\} 1$/m);
    expect(text).toMatch(/^msgx_reliable_messages\{phase="WAITING_CONFIRM"\} 0$/m);
    for (const outcome of ["confirm", "cancel", "unknown", "error", "timeout", "no-checker"]) expect(text).toContain(`msgx_reliable_checkbacks_total{outcome="${outcome}"} 0`);
    for (const kind of ["checkback", "dead"]) expect(text).toContain(`msgx_reliable_alerts_total{kind="${kind}"} 0`);
    expect(text).toMatch(/^msgx_reliable_dead_letters_total 0$/m);
    // No label carries a queue or a message id.
    expect(text).not.toMatch(/m-7|orders/);
  });

  it("answers the admin API's client mistakes with 4xx, none logged at error", async () => {
    await prepare(w, "m-8");
    const admin = (method: "GET" | "POST", url: string) => call(w, method, url, undefined, ADMIN);
    expect(await admin("POST", "/admin/reliable-messages/nobody/resend")).toMatchObject({ status: 404, body: { code: "NOT_FOUND" } });
    expect(await admin("POST", "/admin/reliable-messages/m-8/resend")).toMatchObject({ status: 409, body: { code: "ILLEGAL_STATE" } });
    expect(await admin("POST", "/admin/reliable-messages/m-8/mark-dead")).toMatchObject({ status: 409 });
    expect((await admin("GET", "/admin/reliable-messages?page=0")).status).toBe(400);
    expect((await admin("GET", "/admin/reliable-messages?size=abc")).status).toBe(400);
    expect((await admin("GET", "/admin/reliable-messages/nobody")).status).toBe(404);
    expect(w.logger.at("error")).toEqual([]);
  });
});

describe("/rm/v1: direct send, batch acknowledgement, operator delete (issue 36)", () => {
  let w: World;
  beforeEach(async () => {
    w = world(true);
    apps.push(w.app);
    await w.app.ready();
  });

  it("direct-sends (202 with its outbox event): no record is kept, a retry sends again, the relay is woken", async () => {
    const body = { messageId: "d-1", queue: "orders", body: { note: 1 }, dataType: "json", headers: { "x-tenant": "t1" } };
    const first = await call(w, "POST", "/rm/v1/direct-sends", body);
    expect(first).toMatchObject({ status: 202, body: { eventId: expect.any(Number), messageId: "d-1", queue: "orders" } });
    const again = await call(w, "POST", "/rm/v1/direct-sends", body);
    expect(again.status).toBe(202);
    expect(again.body!["eventId"]).toBeGreaterThan(first.body!["eventId"] as number);
    expect(w.sends()).toBe(2);
    const rows = (await new InMemoryOutboxStore(w.db).pending("KAFKA:rmq.orders", w.clock.now(), 10)).map((r) => r.payload);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({ messageId: "d-1", consumerQueue: "orders", body: '{"note":1}', headers: { "x-tenant": "t1" } });
    // Nothing stored: no check-back, no resend, and its acknowledgement is NOT_FOUND.
    expect((await call(w, "GET", "/rm/v1/messages/d-1")).status).toBe(404);
    expect((await call(w, "POST", "/rm/v1/messages/d-1/ack")).status).toBe(404);
  });

  it("answers a direct send's client mistakes with 400, never 5xx", async () => {
    for (const bad of [
      { queue: "orders", body: "x" },
      { messageId: "d-2", body: "x" },
      { messageId: "d-2", queue: "orders" },
      { messageId: "d-2", queue: "bad queue", body: "x" },
      { messageId: "d-2", queue: "orders", body: "x", checkDelayMs: 1_000 },
      { messageId: "x".repeat(129), queue: "orders", body: "x" },
      "not json",
    ]) {
      const answer = await call(w, "POST", "/rm/v1/direct-sends", bad);
      expect(answer.status, JSON.stringify(bad)).toBe(400);
    }
    expect((await call(w, "POST", "/rm/v1/direct-sends", { messageId: "d-2", queue: "orders", body: "x" }, {})).status).toBe(401);
    expect(w.sends()).toBe(0);
    expect(w.logger.at("error")).toEqual([]);
  });

  it("acknowledges a batch: one result per id in order, each refusal for its id only", async () => {
    await prepare(w, "b-1", {}, true);
    await prepare(w, "b-2", {}, true);
    await prepare(w, "b-3");
    const answer = await call(w, "POST", "/rm/v1/acks", { messageIds: ["b-1", "b-2", "nobody", "b-3", "b-1"] });
    expect(answer).toMatchObject({ status: 200, body: { acknowledged: 3, failed: 2 } });
    expect(answer.body!["results"]).toEqual([
      { messageId: "b-1", ok: true, applied: true, phase: "ACKNOWLEDGED" },
      { messageId: "b-2", ok: true, applied: true, phase: "ACKNOWLEDGED" },
      { messageId: "nobody", ok: false, status: 404, code: "NOT_FOUND", message: expect.any(String) },
      { messageId: "b-3", ok: false, status: 409, code: "ILLEGAL_STATE", message: expect.any(String) },
      { messageId: "b-1", ok: true, applied: false, phase: "ACKNOWLEDGED" },
    ]);
    expect((await w.service.get("b-2"))?.status).toBe("ACKNOWLEDGED");
    expect((await w.service.get("b-3"))?.status).toBe("WAITING_CONFIRM");
  });

  it("answers a batch acknowledgement's client mistakes with 400, never 5xx", async () => {
    for (const bad of [
      {},
      { messageIds: [] },
      { messageIds: "b-1" },
      { messageIds: [1, 2] },
      { messageIds: [""] },
      { messageIds: ["x".repeat(129)] },
      { messageIds: Array.from({ length: 1_001 }, (_, i) => `m-${i}`) },
      { messageIds: ["b-1"], extra: true },
      "not json",
    ]) {
      expect((await call(w, "POST", "/rm/v1/acks", bad)).status, JSON.stringify(bad).slice(0, 80)).toBe(400);
    }
    expect((await call(w, "POST", "/rm/v1/acks", { messageIds: ["b-1"] }, {})).status).toBe(401);
    const full = await call(w, "POST", "/rm/v1/acks", { messageIds: Array.from({ length: 1_000 }, (_, i) => `m-${i}`) });
    expect(full).toMatchObject({ status: 200, body: { acknowledged: 0, failed: 1_000 } });
    expect(w.logger.at("error")).toEqual([]);
  });

  it("delays delivery with deliverAt / delayMs on the confirm or a prepare with ?confirm=true; the recovery job sends it when due", async () => {
    const now = w.clock.now();
    const saved = await prepare(w, "t-1", { delayMs: 60_000 }, true);
    expect(saved).toMatchObject({ status: 201, body: { message: { status: "SENDING", sendCount: 0, nextCheckAt: now + 60_000 } } });
    await prepare(w, "t-2");
    expect(await call(w, "POST", "/rm/v1/messages/t-2/confirm", { deliverAt: now + 120_000 })).toMatchObject({ status: 200, body: { applied: true, message: { status: "SENDING", sendCount: 0, nextCheckAt: now + 120_000 } } });
    expect(w.sends()).toBe(0);
    // Not delivered yet: no acknowledgement.
    expect(await call(w, "POST", "/rm/v1/acks", { messageIds: ["t-1"] })).toMatchObject({ status: 200, body: { failed: 1, results: [{ status: 409, code: "ILLEGAL_STATE" }] } });
    w.clock.advance(60_000);
    expect(await w.recovery.step()).toMatchObject({ delivered: 1 });
    expect((await call(w, "GET", "/rm/v1/messages/t-1")).body!["message"]).toMatchObject({ sendCount: 1, lastSentAt: now + 60_000 });
    // A confirm without a body still sends at once.
    await prepare(w, "t-3");
    expect(await call(w, "POST", "/rm/v1/messages/t-3/confirm")).toMatchObject({ status: 200, body: { message: { sendCount: 1 } } });
  });

  it("a delay on a plain prepare is stored: the confirm without a time delivers then, a confirm's own time wins", async () => {
    const now = w.clock.now();
    expect(await prepare(w, "p-1", { delayMs: 60_000 })).toMatchObject({ status: 201, body: { message: { status: "WAITING_CONFIRM", deliverAt: now + 60_000 } } });
    expect(await prepare(w, "p-2", { deliverAt: now + 90_000 })).toMatchObject({ status: 201, body: { message: { deliverAt: now + 90_000 } } });
    expect(await call(w, "POST", "/rm/v1/messages/p-1/confirm")).toMatchObject({ status: 200, body: { message: { status: "SENDING", sendCount: 0, nextCheckAt: now + 60_000 } } });
    expect(await call(w, "POST", "/rm/v1/messages/p-2/confirm", { delayMs: 0 })).toMatchObject({ status: 200, body: { message: { sendCount: 1 } } });
    expect(w.sends()).toBe(1);
  });

  it("answers a delay's client mistakes with 400: both given, negative, mistyped, too far, unknown keys; on the prepare as on the confirm", async () => {
    for (const bad of [{ delayMs: 1_000, deliverAt: 5 }, { delayMs: 31 * 24 * 3_600_000 }, { deliverAt: w.clock.now() + 31 * 24 * 3_600_000 }, { delayMs: -1 }, { deliverAt: "soon" }]) {
      expect((await prepare(w, "t-4", bad)).status, JSON.stringify(bad)).toBe(400);
      expect((await prepare(w, "t-4", bad, true)).status, JSON.stringify(bad)).toBe(400);
    }
    expect(await w.service.get("t-4")).toBeUndefined();
    await prepare(w, "t-5");
    for (const bad of [{ delayMs: -1 }, { delayMs: "soon" }, { deliverAt: 1.5 }, { delayMs: 31 * 24 * 3_600_000 }, { delay: 5 }, { deliverAt: 1, delayMs: 1 }]) {
      expect((await call(w, "POST", "/rm/v1/messages/t-5/confirm", bad)).status, JSON.stringify(bad)).toBe(400);
    }
    expect((await w.service.get("t-5"))?.status).toBe("WAITING_CONFIRM");
    expect(w.logger.at("error")).toEqual([]);
  });

  it("deletes a message for an operator (admin token only), audited with what was deleted; an unknown id is 404", async () => {
    await prepare(w, "x-1", { field1: "order-9" }, true);
    const admin = (method: "GET" | "POST" | "DELETE", url: string) => call(w, method, url, undefined, ADMIN);
    expect((await call(w, "DELETE", "/admin/reliable-messages/x-1")).status).toBe(401);
    const deleted = await admin("DELETE", "/admin/reliable-messages/x-1?operator=alice");
    expect(deleted).toMatchObject({ status: 200, body: { deleted: { messageId: "x-1", status: "SENDING" } } });
    expect(await w.service.get("x-1")).toBeUndefined();
    const [audit] = await w.db.audits(10);
    expect(audit).toMatchObject({ operator: "alice", action: "reliable-message-delete", msgIds: [] });
    expect(JSON.parse(audit!.detail)).toMatchObject({ messageId: "x-1", queue: "orders", phase: "SENDING", sendCount: 1, field1: "order-9" });
    // Gone: a second delete is 404 and writes no audit row.
    expect(await admin("DELETE", "/admin/reliable-messages/x-1")).toMatchObject({ status: 404, body: { code: "NOT_FOUND" } });
    expect(await w.db.audits(10)).toHaveLength(1);
    expect((await admin("DELETE", `/admin/reliable-messages/${"x".repeat(129)}`)).status).toBe(400);
    expect((await admin("DELETE", `/admin/reliable-messages/x-2?operator=${"o".repeat(101)}`)).status).toBe(400);
    // Without an operator the audit row says it came over HTTP; the id may then be prepared again.
    await prepare(w, "x-2");
    expect((await admin("DELETE", "/admin/reliable-messages/x-2")).status).toBe(200);
    expect((await w.db.audits(10))[0]).toMatchObject({ operator: "http", action: "reliable-message-delete" });
    expect((await prepare(w, "x-2")).status).toBe(201);
    expect(w.logger.at("error")).toEqual([]);
  });
});

describe("/rm/v1 with reliable.createTopics false", () => {
  it("looks topics up under reliable.topicPrefix", async () => {
    const w = world(false, "acme.");
    apps.push(w.app);
    await w.app.ready();
    expect((await call(w, "POST", "/rm/v1/messages", { messageId: "p-1", queue: "orders", body: "x" })).status).toBe(201);
    expect(await call(w, "POST", "/rm/v1/messages", { messageId: "p-2", queue: "payments", body: "x" })).toMatchObject({ status: 422, body: { message: expect.stringMatching(/acme\.payments/) } });
    expect(await call(w, "POST", "/rm/v1/direct-sends", { messageId: "p-3", queue: "payments", body: "x" })).toMatchObject({ status: 422, body: { code: "UNKNOWN_QUEUE" } });
  });

  it("takes a prepare while the broker cannot be asked: it only writes the store, its send waits in the outbox", async () => {
    const w = world(false);
    apps.push(w.app);
    await w.app.ready();
    w.topics.down = true;
    expect(await call(w, "POST", "/rm/v1/messages", { messageId: "o-1", queue: "orders", body: "x" })).toMatchObject({ status: 201, body: { message: { status: "WAITING_CONFIRM" } } });
    expect(await call(w, "POST", "/rm/v1/messages/o-1/confirm")).toMatchObject({ status: 200, body: { message: { status: "SENDING" } } });
  });

  it("refuses 422 UNKNOWN_QUEUE a prepare for a queue whose topic does not exist, and takes one whose topic does", async () => {
    const w = world(false);
    apps.push(w.app);
    await w.app.ready();
    const refused = await call(w, "POST", "/rm/v1/messages?confirm=true", { messageId: "q-1", queue: "unknown-queue", body: "x" });
    expect(refused).toMatchObject({ status: 422, body: { error: "unprocessable entity", code: "UNKNOWN_QUEUE", message: expect.stringMatching(/rmq\.unknown-queue/) } });
    expect(await w.service.get("q-1")).toBeUndefined();
    expect((await call(w, "POST", "/rm/v1/messages", { messageId: "q-2", queue: "orders", body: "x" })).status).toBe(201);
  });

  it("does not look topics up when it may create them", async () => {
    const w = world(true);
    apps.push(w.app);
    await w.app.ready();
    expect((await call(w, "POST", "/rm/v1/messages", { messageId: "q-3", queue: "unknown-queue", body: "x" })).status).toBe(201);
  });
});
