import { describe, expect, it } from "vitest";
import { isMsgxError } from "@msgx/core";
import { CheckVerdict, decideCheckBack, normalizeCheckVerdict, type ReliableMessageChecker } from "../src/check-back-job.js";
import { decideRecovery } from "../src/recovery-job.js";
import type { ReliableMessage, ReliableMessageDraft } from "../src/reliable-message.js";
import { RmWorld } from "./rm-world.js";

const MIN = 60_000;
const draft = (id: string, queue = "accounting"): ReliableMessageDraft => ({ messageId: id, body: "{}", consumerQueue: queue, field1: `BANK-${id}` });
const answer = (verdict: CheckVerdict): ReliableMessageChecker => async () => verdict;

describe("check-back job", () => {
  it("refuses a second checker for a queue", () => {
    const w = new RmWorld();
    w.checkBack.registerChecker("accounting", answer("later"));
    expect(() => w.checkBack.registerChecker("accounting", answer("confirm"))).toThrow(/already registered/);
    w.checkBack.registerChecker("billing", answer("confirm"));
  });

  it("asks only about WAITING_CONFIRM messages older than the threshold, then confirms, deletes or defers", async () => {
    const w = new RmWorld();
    const asked: string[] = [];
    const verdicts: Record<string, CheckVerdict> = { "M-ok": "confirm", "M-rolled-back": "delete", "M-unsure": "later" };
    w.checkBack.registerChecker("accounting", async (m: ReliableMessage) => {
      asked.push(m.messageId);
      return verdicts[m.messageId]!;
    });
    for (const id of Object.keys(verdicts)) await w.service.saveWaitingConfirm(draft(id));
    await w.service.saveAndSend(draft("M-sent"));
    w.clock.advance(MIN - 1);
    expect(await w.checkBack.step()).toMatchObject({ checked: 0, more: false });
    w.clock.advance(1);
    expect(await w.checkBack.step()).toEqual({ checked: 3, confirmed: 1, deleted: 1, deferred: 1, reviewed: 0, alerts: 0, raced: 0, more: false });
    expect(asked.sort()).toEqual(["M-ok", "M-rolled-back", "M-unsure"]);
    expect((await w.service.get("M-ok"))!).toMatchObject({ status: "SENDING", sendCount: 1 });
    expect((await w.service.get("M-rolled-back"))!).toMatchObject({ status: "CANCELLED", sendCount: 0 });
    expect((await w.service.get("M-unsure"))!).toMatchObject({ status: "WAITING_CONFIRM", checkCount: 1, nextCheckAt: w.clock.now() + MIN });
    expect(w.db.tables.events.map((e) => e.partitionKey).sort()).toEqual(["M-ok", "M-sent"]);
    expect((await w.checkBack.step()).checked).toBe(0);
  });

  it("a failing checker, a nonsense answer or a missing checker defer the check and are logged", async () => {
    const w = new RmWorld(["accounting", "billing", "orphan"]);
    w.checkBack.registerChecker("accounting", async () => {
      throw new Error("payment service down");
    });
    w.checkBack.registerChecker("billing", async () => "yes" as CheckVerdict);
    await w.service.saveWaitingConfirm(draft("A", "accounting"));
    await w.service.saveWaitingConfirm(draft("B", "billing"));
    await w.service.saveWaitingConfirm(draft("C", "orphan"));
    w.clock.advance(MIN);
    expect(await w.checkBack.step()).toMatchObject({ checked: 3, deferred: 3 });
    for (const id of ["A", "B", "C"]) expect((await w.service.get(id))!.checkCount).toBe(1);
    expect(w.logger.at("warn")).toEqual(expect.arrayContaining(["reliable message: check-back failed", "reliable message: no checker registered for queue"]));
  });

  it("inconclusive checks back off exponentially up to the cap; from maxChecks on each one alerts (keep-asking), the message kept", async () => {
    const w = new RmWorld(["accounting"], { maxChecks: 3, checkIntervalMs: MIN, maxCheckIntervalMs: 4 * MIN });
    w.checkBack.registerChecker("accounting", answer("unknown" as CheckVerdict));
    await w.service.saveWaitingConfirm(draft("M-1"));
    const alerts: number[] = [];
    const waits: number[] = [];
    for (let i = 0; i < 6; i++) {
      const due = (await w.service.get("M-1"))!.nextCheckAt!;
      w.clock.set(due - 1);
      expect((await w.checkBack.step()).checked).toBe(0);
      w.clock.set(due);
      alerts.push((await w.checkBack.step()).alerts);
      waits.push((await w.service.get("M-1"))!.nextCheckAt! - due);
    }
    expect(waits).toEqual([1, 2, 4, 4, 4, 4].map((m) => m * MIN));
    expect(alerts).toEqual([0, 0, 1, 1, 1, 1]);
    expect(w.checkBack.alertCount).toBe(4);
    expect(w.logger.at("error")).toEqual(Array(4).fill("reliable message: producer check-back still inconclusive"));
    expect((await w.service.get("M-1"))!).toMatchObject({ status: "WAITING_CONFIRM", checkCount: 6, dead: false });
  });

  it("afterMaxChecks dead: the maxChecks-th inconclusive check holds the message for review, not delivered nor dead-lettered; an operator confirms it", async () => {
    const w = new RmWorld(["accounting"], { maxChecks: 2, checkIntervalMs: MIN, afterMaxChecks: "dead" });
    w.checkBack.registerChecker("accounting", async () => {
      throw new Error("checker answered 500");
    });
    await w.service.saveWaitingConfirm(draft("M-1"));
    w.clock.advance(MIN);
    expect(await w.checkBack.step()).toMatchObject({ deferred: 1, reviewed: 0, alerts: 0 });
    w.clock.advance(MIN);
    expect(await w.checkBack.step()).toMatchObject({ deferred: 0, reviewed: 1, alerts: 1 });
    expect(w.logger.at("error")).toEqual(["reliable message: check-back gave up, held for review"]);
    expect((await w.service.get("M-1"))!).toMatchObject({ status: "WAITING_CONFIRM", dead: true, nextCheckAt: null, checkCount: 2 });
    expect(await w.service.countByPhase()).toMatchObject({ REVIEW: 1, WAITING_CONFIRM: 0 });
    w.clock.advance(600 * MIN);
    expect((await w.checkBack.step()).checked).toBe(0);
    expect(w.db.tables.events).toEqual([]);
    expect((await w.service.confirmAndSend("M-1")).message).toMatchObject({ status: "SENDING", dead: false, sendCount: 1 });
    expect(w.db.tables.events.map((e) => e.target)).toEqual(["KAFKA:rmq.accounting"]);
  });

  it("the HTTP verdict names are aliases: cancel cancels, unknown defers", async () => {
    const w = new RmWorld(["accounting"]);
    w.checkBack.registerChecker("accounting", async (m) => (m.messageId === "C" ? "cancel" : "unknown"));
    await w.service.saveWaitingConfirm(draft("C"));
    await w.service.saveWaitingConfirm(draft("U"));
    w.clock.advance(MIN);
    expect(await w.checkBack.step()).toMatchObject({ deleted: 1, deferred: 1 });
    expect((await w.service.get("C"))!.status).toBe("CANCELLED");
    expect(normalizeCheckVerdict("cancel")).toBe("delete");
    expect(normalizeCheckVerdict("unknown")).toBe("later");
    expect(normalizeCheckVerdict("constructor")).toBeUndefined();
  });

  it("a message's own check delay and its queue's default decide when it is first checked", async () => {
    const w = new RmWorld(["accounting", "billing"], { checkAfterMs: MIN, queueCheckAfterMs: { billing: 10 * MIN } });
    w.checkBack.registerChecker("accounting", answer("confirm"));
    w.checkBack.registerChecker("billing", answer("confirm"));
    await w.service.saveWaitingConfirm(draft("A"));
    await w.service.saveWaitingConfirm(draft("B", "billing"));
    await w.service.saveWaitingConfirm({ ...draft("A-immune"), checkDelayMs: 30 * MIN });
    const confirmedAt: Record<string, number> = {};
    for (let t = 1; t <= 30; t++) {
      w.clock.advance(MIN);
      await w.checkBack.step();
      for (const id of ["A", "B", "A-immune"]) if (confirmedAt[id] === undefined && (await w.service.get(id))!.status === "SENDING") confirmedAt[id] = t;
    }
    expect(confirmedAt).toEqual({ A: 1, B: 10, "A-immune": 30 });
  });

  it("decideCheckBack is pure: verdicts map to commands, the alert comes with the maxChecks-th inconclusive answer", () => {
    const w = new RmWorld([], { maxChecks: 2 });
    const m = { checkCount: 1 } as ReliableMessage;
    expect(decideCheckBack(m, { kind: "verdict", verdict: "confirm" }, w.service.options)).toEqual({ command: { type: "confirm", by: "check-back" }, alert: false });
    expect(decideCheckBack(m, { kind: "verdict", verdict: "delete" }, w.service.options)).toEqual({ command: { type: "cancel", by: "check-back" }, alert: false });
    expect(decideCheckBack(m, { kind: "error", error: "x" }, w.service.options)).toEqual({ command: { type: "defer-check" }, alert: true });
    expect(decideCheckBack({ checkCount: 0 } as ReliableMessage, { kind: "no-checker" }, w.service.options).alert).toBe(false);
  });

  it("a producer that confirms while its checker answers: the confirm wins, nothing is lost or doubled", async () => {
    const w = new RmWorld();
    w.checkBack.registerChecker("accounting", async (m) => {
      await w.service.confirmAndSend(m.messageId);
      return "delete";
    });
    await w.service.saveWaitingConfirm(draft("M-1"));
    w.clock.advance(MIN);
    expect(await w.checkBack.step()).toMatchObject({ checked: 1, raced: 1, deleted: 0 });
    expect((await w.service.get("M-1"))!.status).toBe("SENDING");
    expect(w.db.tables.events).toHaveLength(1);
  });

  it("works in batches and says when there is more", async () => {
    const w = new RmWorld(["accounting"], {}, 2);
    w.checkBack.registerChecker("accounting", answer("confirm"));
    for (let i = 0; i < 5; i++) await w.service.saveWaitingConfirm(draft(`M-${i}`));
    w.clock.advance(MIN);
    const steps = [];
    for (let i = 0; i < 4; i++) steps.push(await w.checkBack.step());
    expect(steps.map((s) => [s.confirmed, s.more])).toEqual([[2, true], [2, true], [1, false], [0, false]]);
  });

  it("a store outage propagates from step (the host backs off)", async () => {
    const w = new RmWorld();
    w.db.faults.setDown(true);
    await expect(w.checkBack.step()).rejects.toSatisfy((e: unknown) => isMsgxError(e) && e.kind === "DEPENDENCY_UNAVAILABLE");
  });
});

describe("recovery job", () => {
  it("resends an unacknowledged message on the schedule and marks it dead past maxSends, with an error log and a dead letter", async () => {
    const w = new RmWorld();
    await w.service.saveAndSend(draft("M-1"));
    const start = w.clock.now();
    const sends: number[] = [0];
    let deadAt: number | null = null;
    await w.deliverAll();
    for (let t = 0; t <= 60 && deadAt === null; t++) {
      const step = await w.recovery.step();
      // The relay is prompt: each resend is acknowledged by the broker at once, so its wait starts now.
      await w.deliverAll();
      if (step.resent === 1) sends.push(t);
      if (step.dead === 1) deadAt = t;
      w.clock.advance(MIN);
    }
    expect(sends).toEqual([0, 1, 3, 7, 15, 31]);
    expect(deadAt).toBe(47);
    expect(w.recovery.deadCount).toBe(1);
    expect(w.logger.at("error")).toEqual(["reliable message dead: never acknowledged"]);
    expect((await w.service.get("M-1"))!).toMatchObject({ dead: true, sendCount: 6, lastError: "never acknowledged after 6 sends" });
    expect(w.db.tables.events.map((e) => [e.target, e.stateVersion])).toEqual([
      ...[1, 2, 3, 4, 5, 6].map((n) => ["KAFKA:rmq.accounting", n]),
      ["KAFKA:rmq-dlq.accounting", 6],
    ]);
    await w.deliverAll();
    expect(w.deadLetters("accounting")).toEqual([expect.objectContaining({ messageId: "M-1", sendCount: 6, deadReason: "never acknowledged after 6 sends" })]);
    expect(start).toBeLessThan(w.clock.now());
    w.clock.advance(999 * MIN);
    expect((await w.recovery.step()).examined).toBe(0);
  });

  it("leaves acknowledged, waiting and dead messages alone; an operator resend brings a dead one back under the schedule", async () => {
    const w = new RmWorld();
    await w.service.saveAndSend(draft("acked"));
    await w.service.acknowledge("acked");
    await w.service.saveWaitingConfirm(draft("waiting"));
    await w.service.saveAndSend(draft("dead"));
    await w.service.markDead("dead");
    w.clock.advance(60 * MIN);
    expect(await w.recovery.step()).toMatchObject({ examined: 0 });
    await w.service.resendByMessageId("dead");
    await w.deliverAll();
    w.clock.advance(2 * MIN - 1);
    expect(await w.recovery.step()).toMatchObject({ examined: 0 });
    w.clock.advance(1);
    expect(await w.recovery.step()).toMatchObject({ examined: 1, resent: 1 });
  });

  it("a broker down longer than the whole resend schedule: zero DEAD, one send, delivered once it returns", async () => {
    const w = new RmWorld();
    w.broker.faults.setDown(true);
    for (let i = 0; i < 5; i++) await w.service.saveAndSend(draft(`M-${i}`));
    let dead = 0;
    let resent = 0;
    let pending = 0;
    // 3 hours (the schedule ends at 47 minutes), the relay and the recovery job every 5 s.
    for (let t = 0; t < 3 * 60 * 12; t++) {
      w.clock.advance(5_000);
      await w.deliverAll();
      const step = await w.recovery.step();
      dead += step.dead;
      resent += step.resent;
      pending += step.pending;
    }
    expect(dead).toBe(0);
    expect(resent).toBe(0);
    expect(pending).toBeGreaterThan(5 * 100);
    for (let i = 0; i < 5; i++) expect((await w.service.get(`M-${i}`))!).toMatchObject({ sendCount: 1, dead: false, status: "SENDING" });
    expect(w.db.tables.events).toHaveLength(5);
    expect(w.logger.at("error")).toEqual([]);
    w.broker.faults.setDown(false);
    w.clock.advance(60 * MIN);
    await w.deliverAll();
    expect((w.values("accounting") as { messageId: string }[]).map((v) => v.messageId).sort()).toEqual([0, 1, 2, 3, 4].map((i) => `M-${i}`));
    for (let i = 0; i < 5; i++) await w.service.acknowledge(`M-${i}`);
    expect(await w.service.countByPhase()).toMatchObject({ ACKNOWLEDGED: 5, DEAD: 0, SENDING: 0 });
  });

  it("a send the broker acknowledged 37 s after the confirm is not resent before its wait from that acknowledgement", async () => {
    const w = new RmWorld();
    await w.service.saveWaitingConfirm(draft("M-1"));
    await w.service.confirmAndSend("M-1");
    const confirmedAt = (await w.service.get("M-1"))!.confirmedAt!;
    // The broker is down for 37 s, then the relay's backoff ends when it ends: the recovery job
    // runs every second meanwhile and counts nothing.
    w.broker.faults.setDown(true);
    for (let i = 0; w.db.tables.events[0]!.status === "PENDING" && i < 3_600; i++) {
      w.clock.advance(1_000);
      if (w.clock.now() - confirmedAt >= 37_000) w.broker.faults.setDown(false);
      await w.deliverAll();
      expect(await w.recovery.step()).toMatchObject({ resent: 0, dead: 0 });
    }
    const sentAt = w.db.tables.events[0]!.sentAt!;
    expect(w.db.tables.events[0]!.status).toBe("SENT");
    expect(sentAt - confirmedAt).toBeGreaterThanOrEqual(37_000);
    const resends: number[] = [];
    for (let t = w.clock.now(); t <= sentAt + 2 * MIN; t += 1_000) {
      w.clock.set(t);
      if ((await w.recovery.step()).resent > 0) resends.push(t - sentAt);
    }
    expect(resends).toEqual([MIN]);
    expect((await w.service.get("M-1"))!.sendCount).toBe(2);
  });

  it("a send the broker refused for good makes the message DEAD with the reason, dead-lettered", async () => {
    const w = new RmWorld();
    const m = (await w.service.saveAndSend(draft("M-1"))).message!;
    await w.outbox.markDead(m.lastEventId!, "RECORD_TOO_LARGE", 1);
    w.clock.advance(MIN);
    expect(await w.recovery.step()).toMatchObject({ dead: 1 });
    expect((await w.service.get("M-1"))!).toMatchObject({ dead: true, sendCount: 1, lastError: expect.stringContaining("RECORD_TOO_LARGE") });
    expect(w.logger.at("error")).toEqual(["reliable message dead: the broker refused it"]);
    expect(w.db.tables.events.map((e) => e.target)).toEqual(["KAFKA:rmq.accounting", "KAFKA:rmq-dlq.accounting"]);
  });

  it("decideRecovery is the machine's recover command", async () => {
    const w = new RmWorld();
    const m = (await w.service.saveAndSend(draft("M-1"))).message!;
    expect(decideRecovery(m, m.lastSentAt! + MIN - 1, w.service.options).kind).toBe("noop");
    expect(decideRecovery(m, m.lastSentAt! + MIN, w.service.options)).toMatchObject({ kind: "apply", event: { type: "resent" } });
  });
});
