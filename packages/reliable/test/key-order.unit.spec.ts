import { describe, expect, it } from "vitest";
import { checkReliableMessageDraft } from "../src/message-draft.js";
import { heldBehind, isKeyOrdered } from "../src/key-order.js";
import { decideReliableMessage, evolveReliableMessage } from "../src/message-machine.js";
import { reliableMessageOptions } from "../src/reliable-message-options.js";
import { ReliableMessageStatus, type ReliableMessage } from "../src/reliable-message.js";

const T0 = 1_000_000_000;
const options = reliableMessageOptions({ orderedQueues: ["ordered"] });
const ctx = (now = T0) => ({ now, options });
const draft = (id: string, queue = "ordered", key: string | null = "k") => checkReliableMessageDraft({ messageId: id, body: "{}", consumerQueue: queue, key });
const waiting = (id: string, queue?: string, key?: string | null) => evolveReliableMessage(undefined, { type: "saved", draft: draft(id, queue, key) }, ctx())!;
/** Confirmed with confirm sequence `seq` (what the store assigns). */
const confirmed = (id: string, seq: number, extra: Partial<ReliableMessage> = {}): ReliableMessage => ({
  ...evolveReliableMessage(waiting(id), { type: "scheduled", by: "producer", at: T0 }, ctx())!,
  orderSeq: seq,
  ...extra,
});

describe("per-key order (key-order.ts)", () => {
  it("a queue is ordered when listed and the message has a key", () => {
    expect(isKeyOrdered(options, "ordered", "k")).toBe(true);
    expect(isKeyOrdered(options, "ordered", null)).toBe(false);
    expect(isKeyOrdered(options, "other", "k")).toBe(false);
  });

  it("a confirm or save-and-send on an ordered queue schedules the first send (now, or at its delivery time); elsewhere it sends", () => {
    expect(decideReliableMessage({ type: "confirm", by: "producer" }, waiting("a"), ctx())).toEqual({ kind: "apply", event: { type: "scheduled", by: "producer", at: T0 } });
    expect(decideReliableMessage({ type: "confirm", by: "check-back", deliverAt: T0 + 5 }, waiting("a"), ctx())).toEqual({ kind: "apply", event: { type: "scheduled", by: "check-back", at: T0 + 5 } });
    expect(decideReliableMessage({ type: "confirm", by: "producer" }, waiting("a", "other"), ctx())).toMatchObject({ event: { type: "confirmed" } });
    expect(decideReliableMessage({ type: "save-and-send", draft: draft("a") }, undefined, ctx())).toMatchObject({ event: { type: "saved-and-scheduled", at: T0 } });
    expect(decideReliableMessage({ type: "save-and-send", draft: draft("a", "other") }, undefined, ctx())).toMatchObject({ event: { type: "saved-and-sent" } });
  });

  it("a message ordered by key is not resent before its first send (DEAD or not); after it, as any message", () => {
    expect(decideReliableMessage({ type: "resend" }, confirmed("a", 1), ctx())).toMatchObject({ kind: "reject", code: "ILLEGAL_STATE" });
    expect(decideReliableMessage({ type: "resend" }, confirmed("a", 1, { dead: true }), ctx())).toMatchObject({ kind: "reject", code: "ILLEGAL_STATE" });
    expect(decideReliableMessage({ type: "resend" }, confirmed("a", 1, { dead: true, sendCount: 2 }), ctx())).toMatchObject({ event: { type: "resent" } });
  });

  it("held behind the oldest older message of its queue and key that is not finished; a DEAD one holds, an acknowledged or cancelled one does not", () => {
    const a1 = confirmed("a1", 1, { sendCount: 1 });
    const a2 = confirmed("a2", 2);
    const a3 = confirmed("a3", 3);
    const other = { ...confirmed("b1", 0), key: "other" };
    const elsewhere = { ...confirmed("c1", 0), consumerQueue: "q2" };
    expect(heldBehind(a3, [a1, a2, a3, other, elsewhere])?.messageId).toBe("a1");
    expect(heldBehind(a1, [a1, a2, a3])).toBeUndefined();
    expect(heldBehind(a3, [{ ...a1, dead: true }, a2])?.messageId).toBe("a1");
    expect(heldBehind(a3, [{ ...a1, status: ReliableMessageStatus.ACKNOWLEDGED }, a2])?.messageId).toBe("a2");
    expect(heldBehind(a3, [{ ...a1, status: ReliableMessageStatus.ACKNOWLEDGED }, { ...a2, status: ReliableMessageStatus.ACKNOWLEDGED }])).toBeUndefined();
    // Not confirmed (no sequence): neither held nor holding.
    expect(heldBehind(waiting("w"), [a1])).toBeUndefined();
    expect(heldBehind(a2, [waiting("w")])).toBeUndefined();
  });
});
