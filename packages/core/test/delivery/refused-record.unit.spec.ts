import { describe, expect, it, vi } from "vitest";
import { decideDeliveryFailure, refusedForGood } from "../../src/delivery/delivery-decision.js";
import { MsgxError } from "../../src/errors/msgx-error.js";
import { DeliveryStatus } from "../../src/outbox/outbox-event.js";
import { DEFAULT_RETRY_POLICY } from "../../src/runtime/retry-policy.js";
import { DeliveryWorld, firstDeliveries, msgDraft, schdDraft } from "./delivery-world.js";

const T0 = 1_000_000;
const row = (w: DeliveryWorld, id: number) => w.outbox.events.find((e) => e.eventId === id)!;

/** A world whose logger records its error lines. */
function watched(): { w: DeliveryWorld; errors: [string, Record<string, unknown>][] } {
  const w = new DeliveryWorld();
  const errors: [string, Record<string, unknown>][] = [];
  const deps = w.deps;
  vi.spyOn(w, "deps", "get").mockReturnValue({ ...deps, logger: { ...deps.logger, error: (m, f) => void errors.push([m, { ...f }]) } });
  w.restart();
  return { w, errors };
}

describe("a record the broker refuses for good", () => {
  it("is a MsgxError marked not retriable; anything else is a fault that backs off", () => {
    expect(refusedForGood(new MsgxError("INFRA", "MESSAGE_TOO_LARGE", { retriable: false }))).toBe(true);
    expect(refusedForGood(new MsgxError("INFRA", "constraint"))).toBe(false);
    expect(refusedForGood(new Error("plain"))).toBe(false);
    expect(decideDeliveryFailure(0, T0, DEFAULT_RETRY_POLICY, true)).toEqual({ action: "dead", attempts: 1 });
    expect(decideDeliveryFailure(0, T0, DEFAULT_RETRY_POLICY)).toMatchObject({ action: "retry", attempts: 1 });
  });

  it("msg: the event is DEAD after one attempt, logged at error level with its class; the events behind it go", async () => {
    const { w, errors } = watched();
    await w.outbox.append([msgDraft("F1", 1), msgDraft("BIG", 1), msgDraft("F2", 1)]);
    w.broker.failRecords((r) => r.key === "BIG", "INFRA", { retriable: false });
    expect(await w.dispatcher.step()).toMatchObject({ did: "sent", eventIds: [1] });
    expect(await w.dispatcher.step()).toMatchObject({ did: "dead", eventId: 2, attempts: 1 });
    expect(row(w, 2)).toMatchObject({ status: DeliveryStatus.DEAD, attempts: 1 });
    expect(errors).toEqual([
      ["event dead-lettered: the broker refused its record", expect.objectContaining({ target: "KAFKA:msg", eventId: 2, attempts: 1, errorClass: "INFRA" })],
    ]);
    expect(await w.dispatcher.step()).toMatchObject({ did: "sent", eventIds: [3] });
    expect(firstDeliveries(w.msgRecords())).toEqual([1, 3]);
  });

  it("schd: the FLID's events are DEAD after one attempt; the other FLIDs of the flush go", async () => {
    const { w, errors } = watched();
    await w.outbox.append([schdDraft("BIG", 1), schdDraft("F1", 1), schdDraft("BIG", 2)]);
    w.broker.failRecords((r) => r.key === "BIG", "INFRA", { retriable: false });
    expect(await w.flusher.step()).toMatchObject({ sent: ["F1"], failed: [], dead: [{ flid: "BIG", eventIds: [1, 3], attempts: 1 }] });
    expect([1, 3].map((id) => row(w, id).status)).toEqual([DeliveryStatus.DEAD, DeliveryStatus.DEAD]);
    expect(errors).toEqual([["schd key dead-lettered: the broker refused its record", expect.objectContaining({ flid: "BIG", errorClass: "INFRA" })]]);
  });

  it("a retriable refusal still backs off, and a payload with no JSON form is no broker refusal", async () => {
    const w = new DeliveryWorld();
    await w.outbox.append([msgDraft("R", 1), msgDraft("J", 1, { payload: { big: 1n } })]);
    const heal = w.broker.failRecords((r) => r.key === "R");
    expect(await w.dispatcher.step()).toMatchObject({ did: "failed", eventId: 1, attempts: 1 });
    heal();
    w.clock.advance(1_000);
    expect(await w.dispatcher.step()).toMatchObject({ did: "sent", eventIds: [1] });
    expect(await w.dispatcher.step()).toMatchObject({ did: "failed", eventId: 2, attempts: 1 });
  });
});
