import { describe, expect, it } from "vitest";
import { backoffAfter, Breaker, closedBreaker, decideTick, DEFAULT_RETRY_POLICY, IllegalTransitionError, ProcStatus, type ProcRecord } from "@msgx/core";
import { evolveProc, newProcRecord } from "@msgx/core/testing";

const T0 = 1_000_000;
const policy = DEFAULT_RETRY_POLICY;
const fresh = (): ProcRecord => newProcRecord(7, T0, T0);
const fail = (r: ProcRecord, now: number) => evolveProc(r, { type: "failed", errorClass: "INFRA", reason: "x" }, { now }, policy);

describe("processing state machine", () => {
  it("backs off 1, 2, 4, 8 s and exhausts on the 5th failure (DEAD about 15 s in)", () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((n) => backoffAfter(policy, n))).toEqual([1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000]);
    let r = fresh();
    let now = T0;
    const waits: number[] = [];
    for (let i = 0; i < 4; i++) {
      r = fail(r, now);
      expect(r.status).toBe(ProcStatus.FAILED);
      waits.push(r.nextAttemptAt! - now);
      now = r.nextAttemptAt!;
    }
    expect(waits).toEqual([1000, 2000, 4000, 8000]);
    r = fail(r, now);
    expect(r).toMatchObject({ status: "DEAD", errorClass: "EXHAUSTED", attempts: 5 });
    expect(now - T0).toBe(15_000);
    expect(r.history.map((h) => h.attempt)).toEqual([1, 2, 3, 4, 5]);
  });

  it("keeps the stable start (first attempt at the head) across retries", () => {
    const a = fail(fresh(), T0 + 10);
    const b = fail(a, T0 + 5_000);
    expect(a.headSince).toBe(T0 + 10);
    expect(b.headSince).toBe(T0 + 10);
  });

  it("binds identity on the first attempt and keeps it through failures and replay", () => {
    const meta = { sndr: "AODB", seqn: 1, dttm: "20260305020000", type: "FLOP", styp: "ESTT" };
    const a = evolveProc(fresh(), { type: "failed", errorClass: "CODEC_ERROR", reason: "x" }, { now: T0, identityKey: "K", meta }, policy);
    const b = fail(a, T0 + 2_000);
    const c = evolveProc(evolveProc(b, { type: "exhausted", reason: "held" }, { now: T0 + 3_000 }, policy), { type: "replayed" }, { now: T0 + 4_000 }, policy);
    expect([a.identityKey, b.identityKey, c.identityKey]).toEqual(["K", "K", "K"]);
    expect(c).toMatchObject({ status: "PENDING", attempts: 0, headSince: null, nextAttemptAt: null, meta });
    expect(c.history.length).toBe(b.history.length + 1);
  });

  it("refuses illegal transitions (a terminal record never changes except by replay)", () => {
    const done = evolveProc(fresh(), { type: "succeeded" }, { now: T0 }, policy);
    expect(() => fail(done, T0)).toThrow(IllegalTransitionError);
    expect(() => evolveProc(done, { type: "replayed" }, { now: T0 }, policy)).toThrow(IllegalTransitionError);
    expect(() => evolveProc(fresh(), { type: "replayed" }, { now: T0 }, policy)).toThrow(IllegalTransitionError);
  });
});

describe("the UNSUPPORTED budget (WIRE.md \"Unknown and unwanted types\")", () => {
  const unsupported = (r: ProcRecord, now: number) => evolveProc(r, { type: "failed", errorClass: "UNSUPPORTED", reason: "unsupported:ZZZZ/NONE" }, { now }, policy);

  it("exhausts on the 3rd UNSUPPORTED failure by default (backoff 1, 2 s: DEAD 3 s in), whatever maxAttempts says", () => {
    const a = unsupported(fresh(), T0);
    const b = unsupported(a, a.nextAttemptAt!);
    const c = unsupported(b, b.nextAttemptAt!);
    expect([a.status, b.status, c.status]).toEqual(["FAILED", "FAILED", "DEAD"]);
    expect(c).toMatchObject({ errorClass: "EXHAUSTED", attempts: 3, updatedAt: T0 + 3_000 });
  });

  it("takes the budget as data", () => {
    const own = { mode: "fail", maxAttempts: 1, headDeadlineMs: 10_000 } as const;
    expect(evolveProc(fresh(), { type: "failed", errorClass: "UNSUPPORTED", reason: "x" }, { now: T0 }, policy, own)).toMatchObject({ status: "DEAD", errorClass: "EXHAUSTED" });
    expect(evolveProc(fresh(), { type: "failed", errorClass: "INFRA", reason: "x" }, { now: T0 }, policy, own)).toMatchObject({ status: "FAILED" });
  });

  it("decideTick exhausts a FAILED(UNSUPPORTED) head at its own deadline (10 s), capped by the normal one", () => {
    const held = { ...unsupported(fresh(), T0), nextAttemptAt: T0 + 60_000 };
    const base = { horizon: 100, policy, healthySince: T0 - 1 };
    expect(decideTick({ ...base, head: held, now: T0 + 9_999 })).toEqual({ action: "wait", msgId: 7, until: T0 + 10_000 });
    expect(decideTick({ ...base, head: held, now: T0 + 10_000 }).action).toBe("exhaust");
    const long = { mode: "fail", maxAttempts: 3, headDeadlineMs: 3_600_000 } as const;
    expect(decideTick({ ...base, head: held, now: T0 + policy.headDeadlineMs, unsupported: long }).action).toBe("exhaust");
    // Any other class keeps the normal deadline.
    const infra = { ...fail(fresh(), T0), nextAttemptAt: T0 + 60_000 };
    expect(decideTick({ ...base, head: infra, now: T0 + 10_000 })).toEqual({ action: "wait", msgId: 7, until: T0 + 60_000 });
  });
});

describe("decideTick", () => {
  const base = { now: T0, horizon: 100, policy, healthySince: T0 - 1 };
  it("is idle with no head, waits for the horizon, waits for backoff, processes when due", () => {
    expect(decideTick({ ...base, head: undefined })).toEqual({ action: "idle" });
    expect(decideTick({ ...base, head: { ...fresh(), msgId: 101 } }).action).toBe("await-horizon");
    const failed = fail(fresh(), T0);
    expect(decideTick({ ...base, head: failed })).toEqual({ action: "wait", msgId: 7, until: T0 + 1000 });
    expect(decideTick({ ...base, head: failed, now: T0 + 1000 }).action).toBe("process");
  });

  it("exhausts a FAILED head held past the deadline, counted from the later of its stable start and the pump's health", () => {
    const failed = { ...fail(fresh(), T0), nextAttemptAt: T0 + 60_000_000 };
    const late = T0 + policy.headDeadlineMs;
    expect(decideTick({ ...base, head: failed, now: late }).action).toBe("exhaust");
    // An outage (or a restart) that ended 1 min ago gives the head its full deadline again.
    expect(decideTick({ ...base, head: failed, now: late, healthySince: late - 60_000 }).action).toBe("wait");
  });
});

describe("outage breaker", () => {
  it("doubles its probe wait up to the cap and closes on success", () => {
    let b = closedBreaker;
    const waits: number[] = [];
    for (let i = 0; i < 9; i++) {
      b = Breaker.onOutage(b, T0);
      waits.push(b.probeAt - T0);
    }
    expect(waits).toEqual([500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
    expect(Breaker.mayTry(b, T0 + 29_999)).toBe(false);
    expect(Breaker.mayTry(b, T0 + 30_000)).toBe(true);
    expect(Breaker.isOpen(Breaker.onSuccess(b))).toBe(false);
  });
});
