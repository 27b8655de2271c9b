import { describe, expect, it } from "vitest";
import { CommittedEvents } from "../../src/outbox/committed-events.js";
import { Target } from "../../src/outbox/outbox-event.js";
import { msgDraft } from "./delivery-world.js";

const ids = (events: readonly { eventId: number }[] | undefined) => events?.map((e) => e.eventId);

describe("CommittedEvents", () => {
  it("keeps a target's committed events only while its dispatcher listens, and gives them once, above the id it names", () => {
    const committed = new CommittedEvents();
    const msg = committed.of(Target.MSG);
    committed.committed([msgDraft("F1", 1)], [1], 0);
    expect(msg.take(0, 10)).toBeUndefined();
    msg.listen();
    committed.committed([msgDraft("F1", 2), { ...msgDraft("R", 1), target: Target.REF }, msgDraft("F2", 1)], [2, 3, 4], 0);
    expect(ids(msg.take(2, 10))).toEqual([4]);
    expect(ids(msg.take(0, 10))).toEqual([]);
    committed.committed([msgDraft("F1", 3), msgDraft("F1", 4), msgDraft("F1", 5)], [5, 6, 7], 0);
    expect(ids(msg.take(4, 2))).toEqual([5, 6]);
    expect(msg.size).toBe(1);
  });

  it("gives each event as the outbox reads a fresh row back: PENDING, no attempt, due, its draft's fields", () => {
    const committed = new CommittedEvents();
    const msg = committed.of(Target.MSG);
    msg.listen();
    committed.committed([msgDraft("F1", 1)], [9], 1_000);
    expect(msg.take(0, 1)).toEqual([
      { ...msgDraft("F1", 1), headers: null, eventId: 9, status: "PENDING", attempts: 0, nextAttemptAt: null, lastError: null, createdAt: 1_000, sentAt: null, placement: null },
    ]);
  });

  it("stops every target's listening when told the store may hold events it was not given: lost(), ids that do not match the drafts, or none at all", () => {
    const committed = new CommittedEvents();
    const [msg, ref] = [committed.of(Target.MSG), committed.of(Target.REF)];
    msg.listen();
    ref.listen();
    committed.lost();
    expect([msg.listening, ref.listening]).toEqual([false, false]);
    msg.listen();
    committed.committed([msgDraft("F1", 1), msgDraft("F1", 2)], [1], 0);
    expect(msg.listening).toBe(false);
    msg.listen();
    committed.committed([msgDraft("F1", 1)], undefined as unknown as number[], 0);
    expect(msg.listening).toBe(false);
  });

  it("stops listening when ids do not ascend or more than the limit wait: it no longer holds the whole story", () => {
    const committed = new CommittedEvents(2);
    const msg = committed.of(Target.MSG);
    msg.listen();
    committed.committed([msgDraft("F1", 1)], [5], 0);
    committed.committed([msgDraft("F1", 2)], [4], 0);
    expect(msg.listening).toBe(false);
    msg.listen();
    committed.committed([msgDraft("F1", 1), msgDraft("F1", 2), msgDraft("F1", 3)], [6, 7, 8], 0);
    expect(msg.listening).toBe(false);
    expect(msg.take(0, 10)).toBeUndefined();
  });
});
