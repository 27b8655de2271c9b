import fc from "fast-check";
import { expect, it } from "vitest";
import { EventType } from "@msgx/core";
import { ManualClock } from "@msgx/core/fakes";
import { collapsesInto, isOutageRecheck, phaseOfHistory, type ReliableMessageCause } from "./message-history.js";
import type { LastSendState, ReliableMessageCommand } from "./message-machine.js";
import { isReliableMessageError } from "./reliable-message-error.js";
import { ReliableMessageService } from "./reliable-message-service.js";
import type { ReliableMessageStore } from "./reliable-message-store.js";
import { reliableMessagePhase } from "./reliable-message.js";

const T0 = Date.UTC(2026, 2, 5, 8, 0, 0);
/** A delivery time no run reaches (30 steps of at most 20 minutes). */
const LATER = T0 + 7 * 86_400_000;
const RUNS = Number(process.env["MSGX_MODEL_RUNS"] ?? 25);

const caller = (n: number): ReliableMessageCause => ({
  kind: "api",
  caller: { route: "POST /rm/v1/messages/:id/confirm", requestId: `req-${n}`, remoteAddress: "10.0.0.7", userAgent: "付款服务/1.0", operator: null },
});
const causeArb: fc.Arbitrary<ReliableMessageCause> = fc.oneof(
  fc.nat(99).map(caller),
  fc.constantFrom<ReliableMessageCause>({ kind: "check-back", answer: "LATER" }, { kind: "recovery", lastSend: "sent" }, { kind: "recovery", lastSend: "pending" }, { kind: "library" }),
);
const lastSendArb: fc.Arbitrary<LastSendState> = fc.constantFrom<LastSendState>({ state: "pending" }, { state: "sent", at: T0 }, { state: "dead", error: "too large" }, { state: "unknown" });

/** One step of a history run: a command against one of five ids, a batch acknowledgement, or time. */
type Step =
  | { readonly t: "cmd"; readonly id: number; readonly command: ReliableMessageCommand; readonly cause: ReliableMessageCause }
  | { readonly t: "ackMany"; readonly ids: readonly number[] }
  | { readonly t: "advance"; readonly ms: number };

const draftOf = (messageId: string) => ({ messageId, body: "{\"amount\":\"12.50\"}", dataType: "json", consumerQueue: "accounting", remark: null, field1: null, field2: null, field3: null, headers: null, checkDelayMs: null, key: null });

const commandArb = (messageId: string): fc.Arbitrary<ReliableMessageCommand> =>
  fc.oneof(
    fc.constant<ReliableMessageCommand>({ type: "save-waiting", draft: draftOf(messageId) }),
    fc.constant<ReliableMessageCommand>({ type: "save-and-send", draft: draftOf(messageId) }),
    fc.constant<ReliableMessageCommand>({ type: "save-and-send", draft: draftOf(messageId), deliverAt: LATER }),
    fc.constantFrom<ReliableMessageCommand>(
      { type: "confirm", by: "producer" },
      { type: "confirm", by: "producer", deliverAt: LATER },
      { type: "cancel", by: "check-back" },
      { type: "defer-check" },
      { type: "review" },
      { type: "resend" },
      { type: "mark-dead", reason: "operator gave up" },
      { type: "acknowledge" },
      { type: "reject", reason: "余额不足" },
      { type: "delete" },
    ),
    lastSendArb.map((lastSend): ReliableMessageCommand => ({ type: "recover", lastSend })),
  );

const cmd = (id: number, command: ReliableMessageCommand): Step => ({ t: "cmd", id, command, cause: { kind: "library" } });
const draftCmd = (id: number, type: "save-waiting" | "save-and-send", deliverAt?: number): Step => cmd(id, { type, draft: draftOf(`H-${id}`), ...(deliverAt !== undefined ? { deliverAt } : {}) });
/** A run that reaches every event of the machine (the random ones reach the rarer ones seldom). */
const EVERY_EVENT: Step[] = [
  draftCmd(0, "save-waiting"),
  cmd(0, { type: "defer-check" }),
  cmd(0, { type: "confirm", by: "producer" }),
  cmd(0, { type: "reject", reason: "余额不足" }),
  { t: "advance", ms: 10 * 60_000 },
  cmd(0, { type: "recover", lastSend: { state: "sent", at: T0 } }),
  cmd(0, { type: "reject", reason: "余额不足" }),
  cmd(0, { type: "resend" }),
  cmd(0, { type: "mark-dead", reason: "operator gave up" }),
  cmd(0, { type: "acknowledge" }),
  draftCmd(3, "save-and-send"),
  draftCmd(1, "save-waiting"),
  cmd(1, { type: "review" }),
  cmd(1, { type: "cancel", by: "operator" }),
  draftCmd(4, "save-and-send", LATER),
  draftCmd(2, "save-waiting"),
  cmd(2, { type: "confirm", by: "producer", deliverAt: T0 + 3_600_000 }),
  { t: "advance", ms: 2 * 3_600_000 },
  cmd(2, { type: "recover" }),
  { t: "advance", ms: 20 * 60_000 },
  cmd(2, { type: "recover", lastSend: { state: "pending" } }),
];
const ALL_EVENTS = ["acknowledged", "cancelled", "check-deferred", "confirmed", "delivered", "held-for-review", "marked-dead", "redelivered", "rejected", "rescheduled", "resent", "saved", "saved-and-scheduled", "saved-and-sent", "scheduled"];

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 8, arbitrary: fc.nat(4).chain((id) => fc.record({ t: fc.constant("cmd" as const), id: fc.constant(id), command: commandArb(`H-${id}`), cause: causeArb })) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("ackMany" as const), ids: fc.array(fc.nat(4), { minLength: 1, maxLength: 3 }) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("advance" as const), ms: fc.integer({ min: 0, max: 20 * 60_000 }) }) },
);

/**
 * The history every `ReliableMessageStore` keeps, through the service (run inside
 * `describeReliableMessageStoreContract`, so every store that passes it keeps one): each applied
 * command writes one entry, or folds into the newest one when both are outage rechecks
 * (`collapsesInto`), whatever the sequence, and the entries replay to the message's phase.
 */
export function describeReliableMessageHistoryContract(store: () => ReliableMessageStore): void {
  it("history: any sequence of commands leaves one entry per applied change (a run of outage rechecks one entry with its repeats), versions increasing, chained from → to, the last `to` the stored phase, causes intact", async () => {
    let run = 0;
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 30 }), async (steps) => {
        run += 1;
        const clock = new ManualClock(T0);
        const service = new ReliableMessageService({ store: store(), clock, options: { maxRejects: 2, maxSends: 2 } });
        const id = (n: number): string => `R${run}-H-${n}`;
        const applied = new Map<string, ReliableMessageCause[]>();
        const note = (messageId: string, cause: ReliableMessageCause, was: boolean, gone: boolean): void => {
          if (gone) applied.delete(messageId);
          else if (was) applied.set(messageId, [...(applied.get(messageId) ?? []), cause]);
        };
        for (const step of steps) {
          if (step.t === "advance") {
            clock.advance(step.ms);
            continue;
          }
          if (step.t === "ackMany") {
            for (const r of await service.acknowledgeMany(step.ids.map(id))) if ("outcome" in r) note(r.messageId, { kind: "library" }, r.outcome.applied, false);
            continue;
          }
          const command = "draft" in step.command ? { ...step.command, draft: draftOf(id(step.id)) } : step.command;
          try {
            const outcome = await service.execute(id(step.id), command, undefined, step.cause);
            note(id(step.id), step.cause, outcome.applied, outcome.applied && outcome.message === undefined);
          } catch (e) {
            if (!isReliableMessageError(e)) throw e;
          }
        }
        for (const n of [0, 1, 2, 3, 4]) {
          const history = await store().history(id(n));
          const message = await store().get(id(n));
          expect(phaseOfHistory(history), id(n)).toBe(reliableMessagePhase(message));
          history.forEach((h, i) => expect(h.version).toBeGreaterThan(i === 0 ? 0 : history[i - 1]!.version));
          if (history.length > 0) expect(history[0]!.version).toBe(1);
          expect(history.flatMap((h) => Array.from({ length: h.repeats }, () => h.cause))).toEqual(applied.get(id(n)) ?? []);
          // Only outage rechecks fold, never two in a row left apart, and never anything else.
          history.forEach((h, i) => {
            expect(h.firstAt).toBeLessThanOrEqual(h.at);
            if (h.repeats > 1) expect(isOutageRecheck(h)).toBe(true);
            if (i > 0) expect(collapsesInto(history[i - 1], h)).toBe(false);
          });
          history.forEach((h, i) => expect(h.from).toBe(i === 0 ? "ABSENT" : history[i - 1]!.to));
          for (const h of history) seen.add(h.event);
          if (message !== undefined) expect(history.at(-1)?.version).toBe(message.version);
        }
      }),
      { numRuns: RUNS, examples: [[EVERY_EVENT]], ...(process.env["MSGX_SEED"] ? { seed: Number(process.env["MSGX_SEED"]) } : {}) },
    );
    // Every event of the machine was reached (a deleted message keeps no history), so each one's entry was checked.
    expect([...seen].sort()).toEqual(ALL_EVENTS);
  });

  it("history: N outage rechecks in a row are one entry with repeats N (version and time of the last, time of the first); another change starts a new entry", async () => {
    const clock = new ManualClock(T0);
    const service = new ReliableMessageService({ store: store(), clock, options: { outageRecheckMs: 5_000 } });
    const recheck = { kind: "recovery", lastSend: "pending" } as const;
    await service.prepare({ messageId: "HO-1", body: "{}", consumerQueue: "accounting" });
    await service.confirmAndSend("HO-1");
    const outage = async (n: number): Promise<void> => {
      for (let i = 0; i < n; i++) {
        // The next look is due: after the acknowledgement wait at first, then every outageRecheckMs.
        clock.advance((await store().get("HO-1"))!.nextCheckAt! - clock.now());
        expect((await service.execute("HO-1", { type: "recover", lastSend: { state: "pending" } }, undefined, recheck)).event).toBe("rescheduled");
      }
    };
    const firstRecheck = (await store().get("HO-1"))!.nextCheckAt!;
    await outage(40);
    let history = await store().history("HO-1");
    expect(history.map((h) => [h.event, h.version, h.repeats])).toEqual([["saved", 1, 1], ["confirmed", 2, 1], ["rescheduled", 42, 40]]);
    expect([history[2]!.firstAt, history[2]!.at]).toEqual([firstRecheck, firstRecheck + 39 * 5_000]);
    expect(history[2]!.detail).toBe(`last send still in the outbox, next look at ${new Date(firstRecheck + 40 * 5_000).toISOString()}`);
    expect((await store().get("HO-1"))?.version).toBe(42);
    // The broker is back and the send went out: an acknowledgement wait, then another outage.
    clock.advance(5_000);
    await service.execute("HO-1", { type: "recover", lastSend: { state: "sent", at: clock.now() } }, undefined, { kind: "recovery", lastSend: "sent" });
    await service.execute("HO-1", { type: "resend" });
    await outage(3);
    history = await store().history("HO-1");
    expect(history.map((h) => [h.event, h.repeats])).toEqual([["saved", 1], ["confirmed", 1], ["rescheduled", 40], ["rescheduled", 1], ["resent", 1], ["rescheduled", 3]]);
    expect(history.at(-1)?.version).toBe((await store().get("HO-1"))?.version);
    // Pages newest first: `next` is the `beforeVersion` of the older page, the pages together the whole.
    const pages = [await store().historyPage("HO-1", { limit: 4 })];
    while (pages.at(-1)!.next !== null) pages.push(await store().historyPage("HO-1", { limit: 4, beforeVersion: pages.at(-1)!.next! }));
    expect(pages.map((p) => p.entries.length)).toEqual([4, 2]);
    expect(pages[0]!.next).toBe(pages[0]!.entries[3]!.version);
    expect(pages.flatMap((p) => p.entries)).toEqual([...history].reverse());
    expect(await store().historyPage("HO-1", { limit: 6 })).toEqual({ entries: [...history].reverse(), next: null });
    expect(await store().historyPage("HO-none", { limit: 6 })).toEqual({ entries: [], next: null });
  });

  it("history: an entry commits with its change only (a refused outbox row writes neither), and leaves with its message (delete, purge)", async () => {
    const clock = new ManualClock(T0);
    const service = new ReliableMessageService({ store: store(), clock });
    const draft = { messageId: "HX-1", body: "{}", consumerQueue: "accounting" };
    await service.prepare(draft);
    const refusing: ReliableMessageStore = {
      ...bindReliableMessageStore(store()),
      commit: (w) => store().commit(w.op === "update" && w.send ? { ...w, send: { ...w.send, eventType: "BOGUS" as EventType } } : w),
    };
    const failing = new ReliableMessageService({ store: refusing, clock });
    await expect(failing.confirmAndSend("HX-1")).rejects.toThrow();
    expect((await store().history("HX-1")).map((h) => [h.event, h.to])).toEqual([["saved", "WAITING_CONFIRM"]]);
    await service.confirmAndSend("HX-1", undefined);
    await service.acknowledge("HX-1");
    expect((await store().history("HX-1")).map((h) => [h.from, h.to, h.detail])).toEqual([
      ["ABSENT", "WAITING_CONFIRM", null],
      ["WAITING_CONFIRM", "SENDING", "by producer, send #1"],
      ["SENDING", "ACKNOWLEDGED", "after 1 send(s)"],
    ]);
    await service.prepare({ ...draft, messageId: "HX-2" });
    await service.deleteByMessageId("HX-2");
    expect(await store().history("HX-2")).toEqual([]);
    expect(await service.purgeFinished(T0 + 1, 10)).toBe(1);
    expect(await store().history("HX-1")).toEqual([]);
    // The id is free again and starts a history of its own.
    await service.prepare(draft);
    expect((await store().history("HX-1")).map((h) => h.version)).toEqual([1]);
  });
}

/** Every member of `store` bound to it, to override one in a test. */
export const bindReliableMessageStore = (store: ReliableMessageStore): ReliableMessageStore => ({
  commit: (w) => store.commit(w),
  commitMany: (ws) => store.commitMany(ws),
  history: (id) => store.history(id),
  historyPage: (id, query) => store.historyPage(id, query),
  deliveries: (id) => store.deliveries(id),
  dueDeliveries: (now, limit) => store.dueDeliveries(now, limit),
  scanDeadDeliveries: (queue, after, limit) => store.scanDeadDeliveries(queue, after, limit),
  get: (id) => store.get(id),
  due: (status, now, limit) => store.due(status, now, limit),
  heldBehind: (id) => store.heldBehind(id),
  countHeld: () => store.countHeld(),
  headOfKey: (queue, key) => store.headOfKey(queue, key),
  scan: (f, after, limit) => store.scan(f, after, limit),
  listPage: (f, n, size) => store.listPage(f, n, size),
  purgeFinished: (before, limit) => store.purgeFinished(before, limit),
  countByPhase: () => store.countByPhase(),
  countByQueue: () => store.countByQueue(),
  countDeliveries: () => store.countDeliveries(),
});
