import { describe, expect, it } from "vitest";
import { IllegalTransitionError } from "../../src/processing/proc-machine.js";
import { checkReliableMessageDraft } from "../../src/reliable-message/message-draft.js";
import { decideReliableMessage, evolveReliableMessage, impliesSend, type ReliableMessageCommand, type ReliableMessageEvent } from "../../src/reliable-message/message-machine.js";
import { ackWaitAfter, checkWaitAfter, DEFAULT_RELIABLE_MESSAGE_OPTIONS, reliableMessageOptions } from "../../src/reliable-message/reliable-message-options.js";
import { isReliableMessageError } from "../../src/reliable-message/reliable-message-error.js";
import { ReliableMessagePhase, reliableMessagePhase, type ReliableMessage } from "../../src/reliable-message/reliable-message.js";

const T0 = 1_000_000_000;
const MIN = 60_000;
const options = DEFAULT_RELIABLE_MESSAGE_OPTIONS;
const ctx = (now = T0) => ({ now, options });
const draft = checkReliableMessageDraft({ messageId: "M-1", body: "{}", consumerQueue: "accounting", field1: "BANK-1" });

const waiting = (): ReliableMessage => evolveReliableMessage(undefined, { type: "saved", draft }, ctx())!;
const sending = (): ReliableMessage => evolveReliableMessage(waiting(), { type: "confirmed", by: "producer" }, ctx(T0 + 1_000))!;
const dead = (): ReliableMessage => evolveReliableMessage(sending(), { type: "marked-dead", by: "operator" }, ctx(T0 + 2_000))!;
const states: Record<string, () => ReliableMessage | undefined> = {
  ABSENT: () => undefined,
  WAITING_CONFIRM: waiting,
  SENDING: sending,
  DEAD: dead,
};

/** Expected decision per phase: an event type, "noop", or an error code. */
const TABLE: readonly [ReliableMessageCommand, Record<keyof typeof states, string>][] = [
  [{ type: "save-waiting", draft }, { ABSENT: "saved", WAITING_CONFIRM: "noop", SENDING: "ALREADY_EXISTS", DEAD: "ALREADY_EXISTS" }],
  [{ type: "save-and-send", draft }, { ABSENT: "saved-and-sent", WAITING_CONFIRM: "ALREADY_EXISTS", SENDING: "noop", DEAD: "noop" }],
  [{ type: "confirm", by: "producer" }, { ABSENT: "NOT_FOUND", WAITING_CONFIRM: "confirmed", SENDING: "noop", DEAD: "noop" }],
  [{ type: "cancel", by: "producer" }, { ABSENT: "noop", WAITING_CONFIRM: "deleted", SENDING: "ILLEGAL_STATE", DEAD: "ILLEGAL_STATE" }],
  [{ type: "defer-check" }, { ABSENT: "noop", WAITING_CONFIRM: "check-deferred", SENDING: "noop", DEAD: "noop" }],
  [{ type: "resend" }, { ABSENT: "NOT_FOUND", WAITING_CONFIRM: "ILLEGAL_STATE", SENDING: "resent", DEAD: "resent" }],
  [{ type: "resend", onlyDead: true }, { ABSENT: "NOT_FOUND", WAITING_CONFIRM: "noop", SENDING: "noop", DEAD: "resent" }],
  [{ type: "mark-dead" }, { ABSENT: "NOT_FOUND", WAITING_CONFIRM: "ILLEGAL_STATE", SENDING: "marked-dead", DEAD: "noop" }],
  [{ type: "acknowledge" }, { ABSENT: "noop", WAITING_CONFIRM: "ILLEGAL_STATE", SENDING: "deleted", DEAD: "deleted" }],
  [{ type: "delete" }, { ABSENT: "noop", WAITING_CONFIRM: "deleted", SENDING: "deleted", DEAD: "deleted" }],
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
      { type: "resent", by: "operator" },
      { type: "marked-dead", by: "operator" },
      { type: "deleted", by: "operator" },
    ];
    const legal = new Set([
      "ABSENT saved",
      "ABSENT saved-and-sent",
      "WAITING_CONFIRM confirmed",
      "WAITING_CONFIRM check-deferred",
      "WAITING_CONFIRM deleted",
      "SENDING resent",
      "SENDING marked-dead",
      "SENDING deleted",
      "DEAD resent",
      "DEAD deleted",
    ]);
    for (const [phase, make] of Object.entries(states)) {
      for (const event of events) {
        const run = () => evolveReliableMessage(make(), event, ctx(T0 + 5_000));
        if (legal.has(`${phase} ${event.type}`)) expect(run).not.toThrow();
        else expect(run, `${phase} ${event.type}`).toThrow(IllegalTransitionError);
      }
    }
  });

  it("saving waits checkAfterMs for the first check-back; every change raises the version", () => {
    const w = waiting();
    expect(w).toMatchObject({ version: 1, status: "WAITING_CONFIRM", sendCount: 0, dead: false, checkCount: 0, createdAt: T0, nextCheckAt: T0 + MIN });
    const s = sending();
    expect(s).toMatchObject({ version: 2, status: "SENDING", sendCount: 1, lastSentAt: T0 + 1_000, confirmedAt: T0 + 1_000, nextCheckAt: T0 + 1_000 + MIN });
    expect(dead()).toMatchObject({ version: 3, dead: true, nextCheckAt: null, sendCount: 1 });
    expect(reliableMessagePhase(dead())).toBe(ReliableMessagePhase.DEAD);
  });

  it("only confirm, save-and-send and resend send", () => {
    expect(impliesSend({ type: "confirmed", by: "check-back" })).toBe(true);
    expect(impliesSend({ type: "saved-and-sent", draft })).toBe(true);
    expect(impliesSend({ type: "resent", by: "recovery" })).toBe(true);
    for (const t of ["saved", "check-deferred", "marked-dead", "deleted"] as const) {
      expect(impliesSend({ type: t, draft, by: "operator" } as ReliableMessageEvent)).toBe(false);
    }
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

  it("inconclusive check-backs count and slow down once maxChecks is reached", () => {
    const o = reliableMessageOptions({ maxChecks: 2, checkIntervalMs: 5_000, exhaustedCheckIntervalMs: 3_600_000 });
    let m = waiting();
    m = evolveReliableMessage(m, { type: "check-deferred" }, { now: T0 + MIN, options: o })!;
    expect(m).toMatchObject({ checkCount: 1, nextCheckAt: T0 + MIN + 5_000 });
    m = evolveReliableMessage(m, { type: "check-deferred" }, { now: T0 + 2 * MIN, options: o })!;
    expect(m).toMatchObject({ checkCount: 2, nextCheckAt: T0 + 2 * MIN + 3_600_000, status: "WAITING_CONFIRM" });
    expect(checkWaitAfter(o, 1)).toBe(5_000);
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
    expect(reliableMessageOptions({ maxSends: 3 }).maxSends).toBe(3);
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
    });
  });
});
