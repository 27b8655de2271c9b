import { describe, expect, it } from "vitest";
import { IllegalTransitionError } from "@msgx/core";
import { checkReliableMessageDraft } from "../src/message-draft.js";
import {
  decideReliableMessage,
  evolveReliableMessage,
  impliesDeadLetter,
  impliesSend,
  sendsSpent,
  type ReliableMessageCommand,
  type ReliableMessageEvent,
} from "../src/message-machine.js";
import { ackWaitAfter, checkDelayOf, checkWaitAfter, DEFAULT_RELIABLE_MESSAGE_OPTIONS, reliableMessageOptions } from "../src/reliable-message-options.js";
import { isReliableMessageError } from "../src/reliable-message-error.js";
import { ReliableMessagePhase, reliableMessagePhase, type ReliableMessage } from "../src/reliable-message.js";

const T0 = 1_000_000_000;
const MIN = 60_000;
const options = DEFAULT_RELIABLE_MESSAGE_OPTIONS;
const ctx = (now = T0) => ({ now, options });
const draft = checkReliableMessageDraft({ messageId: "M-1", body: "{}", consumerQueue: "accounting", field1: "BANK-1" });

const waiting = (): ReliableMessage => evolveReliableMessage(undefined, { type: "saved", draft }, ctx())!;
const review = (): ReliableMessage => evolveReliableMessage(waiting(), { type: "held-for-review" }, ctx(T0 + 500))!;
const sending = (): ReliableMessage => evolveReliableMessage(waiting(), { type: "confirmed", by: "producer" }, ctx(T0 + 1_000))!;
const dead = (): ReliableMessage => evolveReliableMessage(sending(), { type: "marked-dead", by: "operator", reason: "test" }, ctx(T0 + 2_000))!;
const acknowledged = (): ReliableMessage => evolveReliableMessage(sending(), { type: "acknowledged" }, ctx(T0 + 2_000))!;
const cancelled = (): ReliableMessage => evolveReliableMessage(waiting(), { type: "cancelled", by: "producer" }, ctx(T0 + 2_000))!;
const states: Record<string, () => ReliableMessage | undefined> = {
  ABSENT: () => undefined,
  WAITING_CONFIRM: waiting,
  REVIEW: review,
  SENDING: sending,
  DEAD: dead,
  ACKNOWLEDGED: acknowledged,
  CANCELLED: cancelled,
};

type Row = Record<keyof typeof states, string>;
/** Expected decision per phase: an event type, "noop", or an error code (the design's table). */
const TABLE: readonly [ReliableMessageCommand, Row][] = [
  [{ type: "save-waiting", draft }, { ABSENT: "saved", WAITING_CONFIRM: "noop", REVIEW: "noop", SENDING: "ALREADY_EXISTS", DEAD: "ALREADY_EXISTS", ACKNOWLEDGED: "ALREADY_EXISTS", CANCELLED: "ALREADY_EXISTS" }],
  [{ type: "save-and-send", draft }, { ABSENT: "saved-and-sent", WAITING_CONFIRM: "ALREADY_EXISTS", REVIEW: "ALREADY_EXISTS", SENDING: "noop", DEAD: "noop", ACKNOWLEDGED: "ALREADY_EXISTS", CANCELLED: "ALREADY_EXISTS" }],
  [{ type: "confirm", by: "producer" }, { ABSENT: "NOT_FOUND", WAITING_CONFIRM: "confirmed", REVIEW: "confirmed", SENDING: "noop", DEAD: "noop", ACKNOWLEDGED: "noop", CANCELLED: "CONFLICT" }],
  [{ type: "cancel", by: "producer" }, { ABSENT: "NOT_FOUND", WAITING_CONFIRM: "cancelled", REVIEW: "cancelled", SENDING: "ILLEGAL_STATE", DEAD: "ILLEGAL_STATE", ACKNOWLEDGED: "ILLEGAL_STATE", CANCELLED: "noop" }],
  [{ type: "defer-check" }, { ABSENT: "noop", WAITING_CONFIRM: "check-deferred", REVIEW: "noop", SENDING: "noop", DEAD: "noop", ACKNOWLEDGED: "noop", CANCELLED: "noop" }],
  [{ type: "review" }, { ABSENT: "noop", WAITING_CONFIRM: "held-for-review", REVIEW: "noop", SENDING: "noop", DEAD: "noop", ACKNOWLEDGED: "noop", CANCELLED: "noop" }],
  [{ type: "recover" }, { ABSENT: "noop", WAITING_CONFIRM: "noop", REVIEW: "noop", SENDING: "resent", DEAD: "noop", ACKNOWLEDGED: "noop", CANCELLED: "noop" }],
  [{ type: "resend" }, { ABSENT: "NOT_FOUND", WAITING_CONFIRM: "ILLEGAL_STATE", REVIEW: "ILLEGAL_STATE", SENDING: "resent", DEAD: "resent", ACKNOWLEDGED: "ILLEGAL_STATE", CANCELLED: "ILLEGAL_STATE" }],
  [{ type: "resend", onlyDead: true }, { ABSENT: "NOT_FOUND", WAITING_CONFIRM: "noop", REVIEW: "noop", SENDING: "noop", DEAD: "resent", ACKNOWLEDGED: "noop", CANCELLED: "noop" }],
  [{ type: "mark-dead" }, { ABSENT: "NOT_FOUND", WAITING_CONFIRM: "ILLEGAL_STATE", REVIEW: "ILLEGAL_STATE", SENDING: "marked-dead", DEAD: "noop", ACKNOWLEDGED: "ILLEGAL_STATE", CANCELLED: "ILLEGAL_STATE" }],
  [{ type: "acknowledge" }, { ABSENT: "NOT_FOUND", WAITING_CONFIRM: "ILLEGAL_STATE", REVIEW: "ILLEGAL_STATE", SENDING: "acknowledged", DEAD: "acknowledged", ACKNOWLEDGED: "noop", CANCELLED: "ILLEGAL_STATE" }],
  [{ type: "reject", reason: "boom" }, { ABSENT: "NOT_FOUND", WAITING_CONFIRM: "ILLEGAL_STATE", REVIEW: "ILLEGAL_STATE", SENDING: "rejected", DEAD: "noop", ACKNOWLEDGED: "noop", CANCELLED: "ILLEGAL_STATE" }],
  [{ type: "delete" }, { ABSENT: "noop", WAITING_CONFIRM: "deleted", REVIEW: "deleted", SENDING: "deleted", DEAD: "deleted", ACKNOWLEDGED: "deleted", CANCELLED: "deleted" }],
];

describe("reliable-message state machine", () => {
  for (const [command, expected] of TABLE) {
    it(`decides ${command.type}${"onlyDead" in command ? " (only dead)" : ""} in every phase`, () => {
      for (const [phase, make] of Object.entries(states)) {
        const d = decideReliableMessage(command, make(), ctx(T0 + 10 * MIN));
        const got = d.kind === "apply" ? d.event.type : d.kind === "noop" ? "noop" : d.code;
        expect(`${phase}: ${got}`).toBe(`${phase}: ${expected[phase]}`);
      }
    });
  }

  it("a save of other content under a taken id is refused even while waiting", () => {
    const other = { ...draft, body: "changed" };
    expect(decideReliableMessage({ type: "save-waiting", draft: other }, waiting(), ctx())).toMatchObject({ kind: "reject", code: "ALREADY_EXISTS" });
  });

  it("evolve refuses every event that is not legal in the phase", () => {
    const events: ReliableMessageEvent[] = [
      { type: "saved", draft },
      { type: "saved-and-sent", draft },
      { type: "confirmed", by: "producer" },
      { type: "check-deferred" },
      { type: "held-for-review" },
      { type: "cancelled", by: "producer" },
      { type: "resent", by: "operator" },
      { type: "redelivered" },
      { type: "rescheduled", at: T0, why: "send-pending" },
      { type: "rejected", reason: "x", final: false },
      { type: "marked-dead", by: "operator", reason: "x" },
      { type: "acknowledged" },
      { type: "deleted", by: "operator" },
    ];
    const legal = new Set([
      "ABSENT saved",
      "ABSENT saved-and-sent",
      "WAITING_CONFIRM confirmed",
      "WAITING_CONFIRM check-deferred",
      "WAITING_CONFIRM held-for-review",
      "WAITING_CONFIRM cancelled",
      "REVIEW confirmed",
      "REVIEW cancelled",
      "SENDING resent",
      "SENDING redelivered",
      "SENDING rescheduled",
      "SENDING rejected",
      "SENDING marked-dead",
      "SENDING acknowledged",
      "DEAD resent",
      "DEAD acknowledged",
      ...["WAITING_CONFIRM", "REVIEW", "SENDING", "DEAD", "ACKNOWLEDGED", "CANCELLED"].map((p) => `${p} deleted`),
    ]);
    for (const [phase, make] of Object.entries(states)) {
      for (const event of events) {
        const run = () => evolveReliableMessage(make(), event, ctx(T0 + 5_000));
        if (legal.has(`${phase} ${event.type}`)) expect(run, `${phase} ${event.type}`).not.toThrow();
        else expect(run, `${phase} ${event.type}`).toThrow(IllegalTransitionError);
      }
    }
  });

  it("acknowledge and cancel keep the message in a terminal status, out of every job's way", () => {
    expect(acknowledged()).toMatchObject({ status: "ACKNOWLEDGED", dead: false, nextCheckAt: null, version: 3 });
    expect(cancelled()).toMatchObject({ status: "CANCELLED", dead: false, nextCheckAt: null, sendCount: 0 });
    expect(reliableMessagePhase(review())).toBe(ReliableMessagePhase.REVIEW);
    expect(review()).toMatchObject({ status: "WAITING_CONFIRM", dead: true, nextCheckAt: null, checkCount: 1 });
    const confirmed = evolveReliableMessage(review(), { type: "confirmed", by: "operator" }, ctx(T0 + 3_000))!;
    expect(confirmed).toMatchObject({ status: "SENDING", dead: false, sendCount: 1 });
  });

  it("prepare of an acknowledged or cancelled id is refused even with the same content (ids are unique for the retention window)", () => {
    for (const make of [acknowledged, cancelled]) {
      for (const type of ["save-waiting", "save-and-send"] as const) {
        expect(decideReliableMessage({ type, draft }, make(), ctx())).toMatchObject({ kind: "reject", code: "ALREADY_EXISTS" });
      }
    }
  });

  it("a per-message check delay beats the queue default, which beats checkAfterMs", () => {
    const o = reliableMessageOptions({ checkAfterMs: MIN, queueCheckAfterMs: { accounting: 5 * MIN, constructor: 7 } });
    const at = (d: ReturnType<typeof checkReliableMessageDraft>) => evolveReliableMessage(undefined, { type: "saved", draft: d }, { now: T0, options: o })!.nextCheckAt;
    expect(at(draft)).toBe(T0 + 5 * MIN);
    expect(at(checkReliableMessageDraft({ messageId: "m", body: "", consumerQueue: "billing" }))).toBe(T0 + MIN);
    expect(at(checkReliableMessageDraft({ messageId: "m", body: "", consumerQueue: "accounting", checkDelayMs: 0 }))).toBe(T0);
    expect(at(checkReliableMessageDraft({ messageId: "m", body: "", consumerQueue: "toString" }))).toBe(T0 + MIN);
    expect(checkDelayOf(o, "constructor", null)).toBe(7);
  });

  it("recover counts only sends the broker acknowledged: pending is an outage, the wait runs from the broker's ack", () => {
    const m = sending(); // sent (written) at T0 + 1 s, first wait 1 min
    const due = m.nextCheckAt!;
    expect(decideReliableMessage({ type: "recover", lastSend: { state: "pending" } }, m, ctx(due - 1)).kind).toBe("noop");
    // Still in the outbox: look again after outageRecheckMs, no send spent, never dead.
    let p = m;
    for (let i = 0; i < 10_000; i++) {
      const now = p.nextCheckAt!;
      const d = decideReliableMessage({ type: "recover", lastSend: { state: "pending" } }, p, ctx(now));
      expect(d).toEqual({ kind: "apply", event: { type: "rescheduled", at: now + options.outageRecheckMs, why: "send-pending" } });
      if (d.kind === "apply") p = evolveReliableMessage(p, d.event, ctx(now))!;
    }
    expect(p).toMatchObject({ sendCount: 1, dead: false });
    // Acknowledged by the broker 37 s after the write: the wait runs to 37 s + 1 min.
    const ackAt = T0 + 1_000 + 37_000;
    const d1 = decideReliableMessage({ type: "recover", lastSend: { state: "sent", at: ackAt } }, m, ctx(due));
    expect(d1).toEqual({ kind: "apply", event: { type: "rescheduled", at: ackAt + MIN, why: "ack-wait" } });
    const r = evolveReliableMessage(m, (d1 as { event: ReliableMessageEvent }).event, ctx(due))!;
    expect(decideReliableMessage({ type: "recover", lastSend: { state: "sent", at: ackAt } }, r, ctx(ackAt + MIN - 1)).kind).toBe("noop");
    expect(decideReliableMessage({ type: "recover", lastSend: { state: "sent", at: ackAt } }, r, ctx(ackAt + MIN))).toMatchObject({ kind: "apply", event: { type: "resent" } });
    // Refused by the broker for good: dead with the reason, dead-lettered.
    const refused = decideReliableMessage({ type: "recover", lastSend: { state: "dead", error: "RECORD_TOO_LARGE" } }, m, ctx(due));
    expect(refused).toMatchObject({ kind: "apply", event: { type: "marked-dead", by: "recovery", reason: expect.stringContaining("RECORD_TOO_LARGE") } });
    expect(impliesDeadLetter((refused as { event: ReliableMessageEvent }).event)).toBe(true);
  });

  it("reject: redelivered after the reject wait without spending a send; the maxRejects-th is dead; replay resets the count", () => {
    const o = reliableMessageOptions({ maxRejects: 3, rejectWaitsMs: [1_000, 5_000], maxSends: 2 });
    const c = (now: number) => ({ now, options: o });
    let m = evolveReliableMessage(waiting(), { type: "confirmed", by: "producer" }, c(T0))!;
    let now = T0 + 100;
    const redeliveries: number[] = [];
    for (let i = 1; i <= 2; i++) {
      const d = decideReliableMessage({ type: "reject", reason: `boom ${i}` }, m, c(now));
      expect(d).toEqual({ kind: "apply", event: { type: "rejected", reason: `boom ${i}`, final: false } });
      m = evolveReliableMessage(m, (d as { event: ReliableMessageEvent }).event, c(now))!;
      expect(m).toMatchObject({ rejectCount: i, lastError: `boom ${i}`, rejectedAt: now });
      // A duplicate reject of the same send is not counted.
      expect(decideReliableMessage({ type: "reject", reason: "dup" }, m, c(now)).kind).toBe("noop");
      expect(decideReliableMessage({ type: "recover", lastSend: { state: "sent", at: now } }, m, c(m.nextCheckAt! - 1)).kind).toBe("noop");
      now = m.nextCheckAt!;
      redeliveries.push(now - (m.rejectedAt ?? 0));
      const r = decideReliableMessage({ type: "recover", lastSend: { state: "sent", at: now - 10 } }, m, c(now));
      expect(r).toEqual({ kind: "apply", event: { type: "redelivered" } });
      expect(impliesSend((r as { event: ReliableMessageEvent }).event)).toBe(true);
      m = evolveReliableMessage(m, (r as { event: ReliableMessageEvent }).event, c(now))!;
      expect(m).toMatchObject({ sendCount: i + 1, rejectedAt: null });
      expect(sendsSpent(m)).toBe(1);
      now += 100;
    }
    expect(redeliveries).toEqual([1_000, 5_000]);
    const final = decideReliableMessage({ type: "reject", reason: "boom 3" }, m, c(now));
    expect(final).toEqual({ kind: "apply", event: { type: "rejected", reason: "boom 3", final: true } });
    expect(impliesDeadLetter((final as { event: ReliableMessageEvent }).event)).toBe(true);
    m = evolveReliableMessage(m, (final as { event: ReliableMessageEvent }).event, c(now))!;
    expect(m).toMatchObject({ dead: true, rejectCount: 3, nextCheckAt: null, lastError: "boom 3" });
    expect(decideReliableMessage({ type: "reject", reason: "late" }, m, c(now)).kind).toBe("noop");
    const replay = evolveReliableMessage(m, { type: "resent", by: "operator" }, c(now + 1))!;
    expect(replay).toMatchObject({ dead: false, rejectCount: 0, sendCount: 4 });
  });

  it("saving waits checkAfterMs for the first check-back; every change raises the version", () => {
    const w = waiting();
    expect(w).toMatchObject({ version: 1, status: "WAITING_CONFIRM", sendCount: 0, dead: false, checkCount: 0, createdAt: T0, nextCheckAt: T0 + MIN });
    const s = sending();
    expect(s).toMatchObject({ version: 2, status: "SENDING", sendCount: 1, lastSentAt: T0 + 1_000, confirmedAt: T0 + 1_000, nextCheckAt: T0 + 1_000 + MIN });
    expect(dead()).toMatchObject({ version: 3, dead: true, nextCheckAt: null, sendCount: 1 });
    expect(reliableMessagePhase(dead())).toBe(ReliableMessagePhase.DEAD);
  });

  it("only confirm, save-and-send, resend and redelivery send; only the events into DEAD dead-letter", () => {
    expect(impliesSend({ type: "confirmed", by: "check-back" })).toBe(true);
    expect(impliesSend({ type: "saved-and-sent", draft })).toBe(true);
    expect(impliesSend({ type: "resent", by: "recovery" })).toBe(true);
    expect(impliesSend({ type: "redelivered" })).toBe(true);
    for (const t of ["saved", "check-deferred", "held-for-review", "cancelled", "rescheduled", "rejected", "marked-dead", "acknowledged", "deleted"] as const) {
      expect(impliesSend({ type: t, draft, by: "operator" } as unknown as ReliableMessageEvent)).toBe(false);
    }
    expect(impliesDeadLetter({ type: "marked-dead", by: "recovery", reason: "r" })).toBe(true);
    expect(impliesDeadLetter({ type: "rejected", reason: "r", final: true })).toBe(true);
    expect(impliesDeadLetter({ type: "rejected", reason: "r", final: false })).toBe(false);
    expect(impliesDeadLetter({ type: "held-for-review" })).toBe(false);
  });

  it("default schedule: sends at 0, 1, 3, 7, 15, 31 minutes, dead at 47 without an acknowledgement", () => {
    let m = sending();
    const start = m.lastSentAt!;
    const sends = [0];
    let deadAt: number | null = null;
    for (let now = start; now <= start + 120 * MIN && deadAt === null; now += 1_000) {
      const d = decideReliableMessage({ type: "recover" }, m, ctx(now));
      if (d.kind !== "apply") continue;
      m = evolveReliableMessage(m, d.event, ctx(now))!;
      if (d.event.type === "resent") sends.push((now - start) / MIN);
      else deadAt = (now - start) / MIN;
    }
    expect(sends).toEqual([0, 1, 3, 7, 15, 31]);
    expect(deadAt).toBe(47);
    expect(m).toMatchObject({ sendCount: 6, dead: true, nextCheckAt: null });
    expect(decideReliableMessage({ type: "recover" }, m, ctx(start + 999 * MIN)).kind).toBe("noop");
  });

  it("the recovery job's due time is the acknowledgement wait of the last send", () => {
    const m = sending();
    expect(decideReliableMessage({ type: "recover" }, m, ctx(m.nextCheckAt! - 1)).kind).toBe("noop");
    expect(decideReliableMessage({ type: "recover" }, m, ctx(m.nextCheckAt!))).toMatchObject({ kind: "apply", event: { type: "resent" } });
  });

  it("an operator resend of a dead message gives it one more wait, then it is dead again", () => {
    let m = dead();
    for (let i = 0; i < 8; i++) m = { ...m, sendCount: m.sendCount + 1 };
    const now = T0 + 100 * MIN;
    const back = evolveReliableMessage(m, { type: "resent", by: "operator" }, ctx(now))!;
    expect(back).toMatchObject({ dead: false, sendCount: 10, lastSentAt: now, nextCheckAt: now + 16 * MIN });
    expect(decideReliableMessage({ type: "recover" }, back, ctx(now + 16 * MIN))).toMatchObject({ kind: "apply", event: { type: "marked-dead", by: "recovery" } });
  });

  it("inconclusive check-backs count and back off exponentially up to maxCheckIntervalMs", () => {
    const o = reliableMessageOptions({ checkIntervalMs: 5_000, maxCheckIntervalMs: 30_000 });
    let m = waiting();
    const waits: number[] = [];
    for (let i = 1; i <= 6; i++) {
      const now = T0 + i * MIN;
      m = evolveReliableMessage(m, { type: "check-deferred" }, { now, options: o })!;
      waits.push(m.nextCheckAt! - now);
    }
    expect(waits).toEqual([5_000, 10_000, 20_000, 30_000, 30_000, 30_000]);
    expect(m).toMatchObject({ checkCount: 6, status: "WAITING_CONFIRM" });
    expect(checkWaitAfter(o, 1_000)).toBe(30_000);
    // The old option name still sets the cap.
    expect(reliableMessageOptions({ exhaustedCheckIntervalMs: 7_000 }).maxCheckIntervalMs).toBe(7_000);
  });

  it("acknowledgement waits: one per send number, the last one for every later send", () => {
    expect([0, 1, 2, 3, 4, 5, 6, 50].map((n) => ackWaitAfter(options, n) / MIN)).toEqual([1, 1, 2, 4, 8, 16, 16, 16]);
  });

  it("options are checked", () => {
    expect(() => reliableMessageOptions({ maxSends: 0 })).toThrow(RangeError);
    expect(() => reliableMessageOptions({ resendWaitsMs: [] })).toThrow(RangeError);
    expect(() => reliableMessageOptions({ resendWaitsMs: [1, -1] })).toThrow(RangeError);
    expect(() => reliableMessageOptions({ checkAfterMs: Number.NaN })).toThrow(RangeError);
    expect(() => reliableMessageOptions({ maxChecks: 1.5 })).toThrow(RangeError);
    expect(() => reliableMessageOptions({ maxRejects: 0 })).toThrow(RangeError);
    expect(() => reliableMessageOptions({ rejectWaitsMs: [0] })).toThrow(RangeError);
    expect(() => reliableMessageOptions({ outageRecheckMs: 0 })).toThrow(RangeError);
    expect(() => reliableMessageOptions({ afterMaxChecks: "drop" as "dead" })).toThrow(RangeError);
    expect(() => reliableMessageOptions({ queueCheckAfterMs: { q: -1 } })).toThrow(RangeError);
    expect(reliableMessageOptions({ maxSends: 3 }).maxSends).toBe(3);
    expect(reliableMessageOptions()).toMatchObject({ maxRejects: 5, rejectWaitsMs: [1_000, 5_000, 30_000, 120_000], outageRecheckMs: 5_000, afterMaxChecks: "keep-asking" });
  });

  it("drafts are checked: empty message or queue, bad queue names, overlong fields", () => {
    const bad = [
      null,
      { messageId: "", body: "x", consumerQueue: "q" },
      { messageId: "a\nb", body: "x", consumerQueue: "q" },
      { messageId: "x".repeat(129), body: "x", consumerQueue: "q" },
      { messageId: "m", body: 5, consumerQueue: "q" },
      { messageId: "m", body: "x", consumerQueue: "" },
      { messageId: "m", body: "x", consumerQueue: "has space" },
      { messageId: "m", body: "x", consumerQueue: "q", field1: "x".repeat(201) },
      { messageId: "m", body: "x", consumerQueue: "q", dataType: "x".repeat(51) },
      { messageId: "m", body: "x", consumerQueue: "q", headers: "a=b" },
      { messageId: "m", body: "x", consumerQueue: "q", headers: ["a"] },
      { messageId: "m", body: "x", consumerQueue: "q", headers: { a: 1 } },
      { messageId: "m", body: "x", consumerQueue: "q", headers: { "": "x" } },
      { messageId: "m", body: "x", consumerQueue: "q", headers: { ["k".repeat(101)]: "x" } },
      { messageId: "m", body: "x", consumerQueue: "q", headers: { k: "v".repeat(1_001) } },
      { messageId: "m", body: "x", consumerQueue: "q", headers: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`h${i}`, "v"])) },
      { messageId: "m", body: "x", consumerQueue: "q", checkDelayMs: -1 },
      { messageId: "m", body: "x", consumerQueue: "q", checkDelayMs: 1.5 },
      { messageId: "m", body: "x", consumerQueue: "q", checkDelayMs: "60000" },
      { messageId: "m", body: "x", consumerQueue: "q", checkDelayMs: 31 * 24 * 3_600_000 },
    ];
    for (const d of bad) {
      let error: unknown;
      try {
        checkReliableMessageDraft(d as never);
      } catch (e) {
        error = e;
      }
      expect(isReliableMessageError(error, "INVALID_MESSAGE"), JSON.stringify(d)).toBe(true);
    }
    expect(checkReliableMessageDraft({ messageId: "m", body: "", consumerQueue: "a.b_c-1" })).toEqual({
      messageId: "m",
      body: "",
      consumerQueue: "a.b_c-1",
      dataType: null,
      remark: null,
      field1: null,
      field2: null,
      field3: null,
      headers: null,
      checkDelayMs: null,
      key: null,
    });
    const most = { messageId: "m", body: "", consumerQueue: "q", checkDelayMs: 0, headers: { ["k".repeat(100)]: "v".repeat(1_000), ...Object.fromEntries(Array.from({ length: 19 }, (_, i) => [`h${i}`, ""])) } };
    expect(checkReliableMessageDraft(most)).toMatchObject({ checkDelayMs: 0, headers: most.headers });
    expect(checkReliableMessageDraft({ messageId: "m", body: "", consumerQueue: "q", headers: {} }).headers).toBeNull();
    expect(checkReliableMessageDraft({ messageId: "m", body: "", consumerQueue: "q", key: "order-42" }).key).toBe("order-42");
    for (const key of ["", "k".repeat(129), "a\u0000b", 7]) {
      expect(() => checkReliableMessageDraft({ messageId: "m", body: "", consumerQueue: "q", key } as never), JSON.stringify(key)).toThrow(/key/);
    }
  });
});
