import fc from "fast-check";
import { expect, it } from "vitest";
import { ManualClock } from "@msgx/core/fakes";
import { isReliableMessageError } from "./reliable-message-error.js";
import { reliableMessageTarget } from "./message-envelope.js";
import { RecoveryJob } from "./recovery-job.js";
import { ReliableMessageService } from "./reliable-message-service.js";
import { ReliableMessageStatus, isFinishedStatus, type ReliableMessage } from "./reliable-message.js";
import type { ReliableMessageStore } from "./reliable-message-store.js";
import type { OutboxEvent } from "@msgx/core";

/** What `ReliableMessageStoreContractSubject` gives (its contract calls this one; taken structurally, so the two files do not import each other). */
interface KeyOrderSubject {
  readonly store: ReliableMessageStore;
  outboxRows(): Promise<readonly OutboxEvent[]>;
}

const QUEUE = "ordered";
const KEYS = ["k-a", "k-b", "k-c"] as const;
const T0 = Date.UTC(2026, 2, 5, 9, 0, 0);

/** A service and a recovery job over the subject's store, with `QUEUE` ordered by key. */
function world(subject: KeyOrderSubject) {
  const clock = new ManualClock(T0);
  const service = new ReliableMessageService({ store: subject.store, clock, options: { orderedQueues: [QUEUE], maxRejects: 2, rejectWaitsMs: [1_000] } });
  const sends = { get: async (ids: readonly number[]) => (await subject.outboxRows()).filter((r) => ids.includes(r.eventId)) };
  const recovery = new RecoveryJob({ service, store: subject.store, sends, clock });
  const drain = async () => {
    for (let i = 0; i < 20 && (await recovery.step()).more; i++);
  };
  const all = async (): Promise<ReliableMessage[]> => [...(await subject.store.scan({ consumerQueue: QUEUE }, null, 10_000))];
  /** Message ids of the first sends to the queue, in EVENT_ID order. */
  const firstSends = async (): Promise<string[]> =>
    (await subject.outboxRows()).filter((r) => r.target === reliableMessageTarget(QUEUE) && r.stateVersion === 1).map((r) => (r.payload as { messageId: string }).messageId);
  return { clock, service, recovery, drain, all, firstSends };
}

/** Sent at least once and not finished (DEAD included): what a consumer may hold. */
const inFlight = (m: ReliableMessage): boolean => m.status === ReliableMessageStatus.SENDING && m.sendCount > 0;

/** Per-key order, part of the store contract (`key-order.ts`); `subject()` is the current test's. */
export function describeKeyOrderContract(subject: () => KeyOrderSubject, options: { readonly numRuns: number }): void {
  it("key order: the store numbers confirms per key; a key's head is sent at its confirm or its predecessor's acknowledgement, the others are held (not due); other keys flow", async () => {
    const w = world(subject());
    const draft = (id: string, key: string) => ({ messageId: id, consumerQueue: QUEUE, body: id, key });
    await w.service.prepare(draft("a1", "k-a"));
    await w.service.prepare(draft("a2", "k-a"));
    // a2 is confirmed first (with a delivery time ahead), so it is the head of k-a: a1 waits for it.
    const a2 = await w.service.confirmAndSend("a2", { delayMs: 30_000 });
    const a1 = await w.service.confirmAndSend("a1");
    const b1 = await w.service.saveAndSend(draft("b1", "k-b"));
    expect([a2.event, a1.event, b1.event]).toEqual(["scheduled", "scheduled", "saved-and-scheduled"]);
    expect(a2.message!.orderSeq).toBeLessThan(a1.message!.orderSeq!);
    expect((await subject().store.get("a1"))!.orderSeq).toBe(a1.message!.orderSeq);
    expect(await w.firstSends()).toEqual(["b1"]);
    // a1 is due but held behind a2; b1 waits for its acknowledgement.
    expect(await subject().store.due(ReliableMessageStatus.SENDING, w.clock.now(), 10)).toEqual([]);
    expect((await w.service.heldBehind("a1"))?.messageId).toBe("a2");
    expect(await w.service.heldBehind("a2")).toBeUndefined();
    expect((await subject().store.headOfKey(QUEUE, "k-a"))?.messageId).toBe("a2");
    expect(await w.service.countHeld()).toEqual({ behindDead: 0, behindLive: 1 });
    // Its delivery time comes (before b1's acknowledgement wait of a minute ends).
    w.clock.advance(30_000);
    expect((await subject().store.due(ReliableMessageStatus.SENDING, w.clock.now(), 10)).map((m) => m.messageId)).toEqual(["a2"]);
    await w.drain();
    await w.drain();
    expect(await w.firstSends()).toEqual(["b1", "a2"]);
    await w.service.acknowledge("a2");
    expect(await w.firstSends()).toEqual(["b1", "a2", "a1"]);
    expect((await subject().store.headOfKey(QUEUE, "k-a"))?.messageId).toBe("a1");
    // The business key is the record key: one key stays on one partition.
    expect((await subject().outboxRows()).map((r) => r.partitionKey)).toEqual(["k-b", "k-a", "k-a"]);
  });

  it("key order: a DEAD message holds its key until acknowledged or deleted; a delayed one holds the later ones of its key; a missing key is 400 on an ordered queue", async () => {
    const w = world(subject());
    await w.service.saveAndSend({ messageId: "d1", consumerQueue: QUEUE, body: "1", key: "k-d" });
    await w.service.saveAndSend({ messageId: "d2", consumerQueue: QUEUE, body: "2", key: "k-d" });
    await w.drain();
    await w.service.markDead("d1", "poison");
    await w.drain();
    expect(await w.firstSends()).toEqual(["d1"]);
    expect((await w.service.heldBehind("d2"))?.messageId).toBe("d1");
    expect(await w.service.countHeld()).toEqual({ behindDead: 1, behindLive: 0 });
    await w.service.deleteByMessageId("d1");
    expect(await w.firstSends()).toEqual(["d1", "d2"]);

    await w.service.saveAndSend({ messageId: "e1", consumerQueue: QUEUE, body: "1", key: "k-e" }, { delayMs: 60_000 });
    await w.service.saveAndSend({ messageId: "e2", consumerQueue: QUEUE, body: "2", key: "k-e" });
    await w.drain();
    expect(await w.firstSends()).toEqual(["d1", "d2"]);
    w.clock.advance(60_000);
    await w.drain();
    expect(await w.firstSends()).toEqual(["d1", "d2", "e1"]);
    // e2 waits for e1, sent and not acknowledged yet.
    expect(await w.service.countHeld()).toEqual({ behindDead: 0, behindLive: 1 });
    await expect(w.service.resendByMessageId("e2")).rejects.toMatchObject({ code: "ILLEGAL_STATE" });
    await expect((async () => w.service.prepare({ messageId: "x", consumerQueue: QUEUE, body: "x" }))()).rejects.toMatchObject({ code: "INVALID_MESSAGE" });
    // Another queue is not ordered: the confirm sends at once, the key is only the record key.
    const free = await w.service.saveAndSend({ messageId: "f1", consumerQueue: "free", body: "f", key: "k-e" });
    expect([free.event, free.message!.orderSeq]).toEqual(["saved-and-sent", null]);
  });

  it("key order (property): random interleavings of confirms, acks, rejects, deaths and operator fixes deliver each key's first sends in confirm order, never two in flight per key, and every confirmed message in the end", async () => {
    let run = 0;
    const op = fc.oneof(
      fc.record({ t: fc.constant("send" as const), key: fc.constantFrom(...KEYS), delayMs: fc.constantFrom(0, 0, 5_000), prepareFirst: fc.boolean() }),
      fc.record({ t: fc.constant("prepare" as const), key: fc.constantFrom(...KEYS) }),
      fc.record({ t: fc.constant("confirm" as const), pick: fc.nat(5) }),
      fc.record({ t: fc.constantFrom("ack" as const, "reject" as const, "kill" as const), key: fc.constantFrom(...KEYS) }),
      fc.record({ t: fc.constant("fix" as const), key: fc.constantFrom(...KEYS), how: fc.constantFrom("resend" as const, "ack" as const, "delete" as const) }),
      fc.record({ t: fc.constant("tick" as const), ms: fc.constantFrom(0, 1_000, 6_000) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 25 }), async (ops) => {
        run += 1;
        const w = world(subject());
        const prefix = `r${run}-`;
        const seqOf = new Map<string, number>();
        let n = 0;
        const mine = async () => (await w.all()).filter((m) => m.messageId.startsWith(prefix));
        const ofKey = async (key: string) => (await mine()).filter((m) => m.key === key).sort((a, b) => (a.orderSeq ?? Infinity) - (b.orderSeq ?? Infinity));
        const remember = (m: ReliableMessage | undefined) => m?.orderSeq != null && seqOf.set(m.messageId, m.orderSeq);
        const tolerate = async (f: () => Promise<unknown>) => {
          try {
            await f();
          } catch (e) {
            if (!isReliableMessageError(e)) throw e;
          }
        };
        const check = async () => {
          for (const key of KEYS) {
            const messages = await ofKey(key);
            messages.forEach(remember);
            const flying = messages.filter(inFlight);
            expect(flying.length).toBeLessThanOrEqual(1);
            const head = messages.find((m) => m.orderSeq !== null && !isFinishedStatus(m.status));
            if (flying.length === 1) expect(flying[0]!.messageId).toBe(head?.messageId);
          }
          const firsts = (await w.firstSends()).filter((id) => id.startsWith(prefix));
          for (const key of KEYS) {
            const seqs = firsts.filter((id) => id.includes(`-${key}-`)).map((id) => seqOf.get(id)!);
            expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
          }
        };
        for (const o of ops) {
          switch (o.t) {
            case "send": {
              const draft = { messageId: `${prefix}${o.key}-${n++}`, consumerQueue: QUEUE, body: "b", key: o.key };
              const when = o.delayMs > 0 ? { delayMs: o.delayMs } : undefined;
              if (o.prepareFirst) {
                await w.service.prepare(draft);
                remember((await w.service.confirmAndSend(draft.messageId, when)).message);
              } else remember((await w.service.saveAndSend(draft, when)).message);
              break;
            }
            case "prepare":
              await w.service.prepare({ messageId: `${prefix}${o.key}-${n++}`, consumerQueue: QUEUE, body: "b", key: o.key });
              break;
            case "confirm": {
              const waiting = (await mine()).filter((m) => m.status === ReliableMessageStatus.WAITING_CONFIRM);
              const m = waiting[o.pick % Math.max(waiting.length, 1)];
              if (m !== undefined) remember((await w.service.confirmAndSend(m.messageId)).message);
              break;
            }
            case "ack":
            case "reject": {
              const m = (await ofKey(o.key)).find((x) => inFlight(x) && !x.dead);
              if (m !== undefined) await tolerate(() => (o.t === "ack" ? w.service.acknowledge(m.messageId) : w.service.reject(m.messageId, "failed")));
              break;
            }
            case "kill": {
              const m = (await ofKey(o.key)).find((x) => x.status === ReliableMessageStatus.SENDING && !x.dead);
              if (m !== undefined) await w.service.markDead(m.messageId, "operator");
              break;
            }
            case "fix": {
              const m = (await ofKey(o.key)).find((x) => x.status === ReliableMessageStatus.SENDING && x.dead);
              if (m === undefined) break;
              if (o.how === "resend") await tolerate(() => w.service.resendByMessageId(m.messageId));
              else if (o.how === "ack") await w.service.acknowledge(m.messageId);
              else await w.service.deleteByMessageId(m.messageId);
              break;
            }
            case "tick":
              w.clock.advance(o.ms);
              await w.drain();
              break;
          }
          await check();
        }
        // Liveness: a consumer that acknowledges what it holds, and an operator who acknowledges
        // the dead, get every confirmed message delivered.
        for (let round = 0; round < 40; round++) {
          const open = (await mine()).filter((m) => m.status === ReliableMessageStatus.SENDING);
          if (open.length === 0) break;
          for (const m of open) if (inFlight(m) || m.dead) await tolerate(() => w.service.acknowledge(m.messageId));
          w.clock.advance(6_000);
          await w.drain();
          await check();
        }
        const left = (await mine()).filter((m) => m.status === ReliableMessageStatus.SENDING);
        expect(left.map((m) => m.messageId)).toEqual([]);
        const delivered = new Set(await w.firstSends());
        for (const m of await mine()) if (m.status === ReliableMessageStatus.ACKNOWLEDGED && m.sendCount > 0) expect(delivered.has(m.messageId)).toBe(true);
      }),
      { numRuns: options.numRuns },
    );
  });
}
