import { describe, expect, it } from "vitest";
import { isMsgxError } from "../../src/errors/msgx-error.js";
import { CheckVerdict, decideCheckBack, type ReliableMessageChecker } from "../../src/reliable-message/check-back-job.js";
import { decideRecovery } from "../../src/reliable-message/recovery-job.js";
import type { ReliableMessage, ReliableMessageDraft } from "../../src/reliable-message/reliable-message.js";
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
    expect(await w.checkBack.step()).toEqual({ checked: 3, confirmed: 1, deleted: 1, deferred: 1, alerts: 0, raced: 0, more: false });
    expect(asked.sort()).toEqual(["M-ok", "M-rolled-back", "M-unsure"]);
    expect((await w.service.get("M-ok"))!).toMatchObject({ status: "SENDING", sendCount: 1 });
    expect(await w.service.get("M-rolled-back")).toBeUndefined();
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

  it("after maxChecks inconclusive checks: an error log and a count per check, the message kept and asked less often", async () => {
    const w = new RmWorld(["accounting"], { maxChecks: 3, checkIntervalMs: MIN, exhaustedCheckIntervalMs: 60 * MIN });
    w.checkBack.registerChecker("accounting", answer("later"));
    await w.service.saveWaitingConfirm(draft("M-1"));
    const alerts: number[] = [];
    for (let i = 0; i < 4; i++) {
      w.clock.advance(MIN);
      alerts.push((await w.checkBack.step()).alerts);
    }
    expect(alerts).toEqual([0, 0, 1, 0]);
    w.clock.advance(59 * MIN);
    expect((await w.checkBack.step()).alerts).toBe(1);
    expect(w.checkBack.alertCount).toBe(2);
    expect(w.logger.at("error")).toEqual(["reliable message: producer check-back still inconclusive", "reliable message: producer check-back still inconclusive"]);
    expect((await w.service.get("M-1"))!).toMatchObject({ status: "WAITING_CONFIRM", checkCount: 4 });
    w.checkBack.registerChecker("billing", answer("confirm"));
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
  it("resends an unacknowledged message on the schedule and marks it dead past maxSends, with an error log", async () => {
    const w = new RmWorld();
    await w.service.saveAndSend(draft("M-1"));
    const start = w.clock.now();
    const sends: number[] = [0];
    let deadAt: number | null = null;
    for (let t = 0; t <= 60 && deadAt === null; t++) {
      const step = await w.recovery.step();
      if (step.resent === 1) sends.push(t);
      if (step.dead === 1) deadAt = t;
      w.clock.advance(MIN);
    }
    expect(sends).toEqual([0, 1, 3, 7, 15, 31]);
    expect(deadAt).toBe(47);
    expect(w.recovery.deadCount).toBe(1);
    expect(w.logger.at("error")).toEqual(["reliable message dead: never acknowledged"]);
    expect((await w.service.get("M-1"))!).toMatchObject({ dead: true, sendCount: 6 });
    expect(w.db.tables.events.map((e) => [e.partitionKey, e.stateVersion])).toEqual([1, 2, 3, 4, 5, 6].map((n) => ["M-1", n]));
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
    w.clock.advance(2 * MIN - 1);
    expect(await w.recovery.step()).toMatchObject({ examined: 0 });
    w.clock.advance(1);
    expect(await w.recovery.step()).toMatchObject({ examined: 1, resent: 1 });
  });

  it("decideRecovery is the machine's recover command", async () => {
    const w = new RmWorld();
    const m = (await w.service.saveAndSend(draft("M-1"))).message!;
    expect(decideRecovery(m, m.lastSentAt! + MIN - 1, w.service.options).kind).toBe("noop");
    expect(decideRecovery(m, m.lastSentAt! + MIN, w.service.options)).toMatchObject({ kind: "apply", event: { type: "resent" } });
  });
});
