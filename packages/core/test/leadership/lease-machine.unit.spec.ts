import { describe, expect, it } from "vitest";
import { decideLease, evolveLease, initialLease, LeasePhase, leaseTiming, mayLead, type LeaseCommand, type LeaseState } from "../../src/index.js";

const timing = leaseTiming(10_000);
const step = (state: LeaseState, command: LeaseCommand, now: number): LeaseState => {
  const event = decideLease(state, command, now, timing);
  return event === undefined ? state : evolveLease(state, event);
};

describe("the lease machine", () => {
  it("times a lease of 10 s: renew every 3.3 s, stop 2 s early; refuses a ttl too short to renew", () => {
    expect(timing).toEqual({ ttlMs: 10_000, renewEveryMs: 3_333, safetyMarginMs: 2_000 });
    expect(() => leaseTiming(299)).toThrow(RangeError);
  });

  it("leads from a grant, counting the window from when the request was SENT, not answered", () => {
    const s = step(initialLease, { type: "acquired", epoch: 7, sentAt: 1_000 }, 1_500);
    expect(s).toEqual({ phase: LeasePhase.LEADING, epoch: 7, validUntil: 1_000 + 10_000 - 2_000 });
    expect(mayLead(s, 8_999)).toBe(true);
    expect(mayLead(s, 9_000)).toBe(false);
    expect(mayLead(initialLease, 0)).toBe(false);
  });

  it("ignores a grant whose window ran out before its answer arrived", () => {
    expect(step(initialLease, { type: "acquired", epoch: 7, sentAt: 0 }, 8_000)).toBe(initialLease);
  });

  it("a renewal moves the window on from its send time, never back", () => {
    let s = step(initialLease, { type: "acquired", epoch: 1, sentAt: 0 }, 10);
    s = step(s, { type: "renewed", sentAt: 3_000 }, 3_100);
    expect(s).toMatchObject({ validUntil: 11_000 });
    // A late answer to an earlier renewal does not shorten the window.
    s = step(s, { type: "renewed", sentAt: 2_000 }, 3_200);
    expect(s).toMatchObject({ validUntil: 11_000 });
  });

  it("a frozen leader that wakes past its window is LOST at its first tick, and even a renewal answer then does not save it", () => {
    const leading = step(initialLease, { type: "acquired", epoch: 4, sentAt: 0 }, 10);
    expect(step(leading, { type: "tick" }, 7_999)).toBe(leading);
    const lost = step(leading, { type: "tick" }, 30_000);
    expect(lost).toMatchObject({ phase: LeasePhase.LOST, epoch: 4 });
    expect((lost as { why: string }).why).toMatch(/not renewed in time \(22000 ms past/);
    expect(step(leading, { type: "renewed", sentAt: 29_000 }, 30_000)).toMatchObject({ phase: LeasePhase.LOST });
  });

  it("a refused renewal is LOST with the store's reason; LOST is terminal", () => {
    const leading = step(initialLease, { type: "acquired", epoch: 4, sentAt: 0 }, 10);
    const lost = step(leading, { type: "renew-refused", why: "held with epoch 5 by B" }, 20);
    expect(lost).toEqual({ phase: LeasePhase.LOST, epoch: 4, why: "renewal refused (epoch 4): held with epoch 5 by B" });
    for (const c of [{ type: "acquired", epoch: 9, sentAt: 20 }, { type: "renewed", sentAt: 20 }, { type: "tick" }] as const) {
      expect(step(lost, c, 30)).toBe(lost);
    }
    expect(mayLead(lost, 21)).toBe(false);
  });
});
