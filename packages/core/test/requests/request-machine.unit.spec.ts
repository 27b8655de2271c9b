import { describe, expect, it } from "vitest";
import { decideRequest, evolveRequest, IllegalRequestTransitionError, registerRequest, type RequestEvent } from "../../src/requests/request-machine.js";
import { DEFAULT_REQUEST_OPTIONS, nextSeqn, requestOptions } from "../../src/requests/request-options.js";
import { toOpenRequest, type RequestRecord } from "../../src/requests/request-record.js";
import { RequestStatus } from "../../src/requests/request-status.js";
import { MatchRule } from "../../src/requests/reply-match.js";

const T0 = Date.UTC(2026, 2, 5, 1, 0, 0);
const registered = (): RequestRecord => ({
  requestId: "1",
  ...registerRequest({
    params: { kind: "RQFD", from: "2026-03-06T00:00", to: "2026-03-06T23:59" },
    meta: { sndr: "MSGX", seqn: 1, dttm: "20260305090000" },
    routingId: "VIEWRQFD",
    rawXml: "<MSG/>",
    requestedBy: "ops",
    now: T0,
    timeoutMs: 60_000,
  }),
});
const match = { rule: MatchRule.FALLBACK, msgId: 9, replyDttm: "20260305090100", replyAt: T0 + 60_000, detail: "d" };
const EVENTS: readonly RequestEvent[] = [
  { type: "send-attempted", at: T0, leaseUntil: T0 + 10 },
  { type: "send-failed", at: T0, error: "x", retryAt: T0 + 5 },
  { type: "sent", at: T0 + 1, outboundId: 3, recovered: false, timeoutMs: 60_000 },
  { type: "picked-up", at: T0 + 2 },
  { type: "answered", at: T0 + 3, match },
  { type: "expired", at: T0 + 4, reason: "timeout" },
];

describe("request lifecycle (evolveRequest)", () => {
  it("REGISTERED → SENT → WAITING → DONE, each change one version up, the audit kept", () => {
    let r = registered();
    expect(r).toMatchObject({ status: "REGISTERED", version: 1, requestType: "RQFD", deadlineAt: T0 + 60_000, sendAttempts: 0 });
    r = evolveRequest(r, { type: "send-attempted", at: T0, leaseUntil: T0 + 120_000 });
    expect(r).toMatchObject({ status: "REGISTERED", version: 2, sendAttempts: 1, lastAttemptAt: T0, nextAttemptAt: T0 + 120_000 });
    r = evolveRequest(r, { type: "sent", at: T0 + 5, outboundId: 42, recovered: true, timeoutMs: 60_000 });
    expect(r).toMatchObject({ status: "SENT", version: 3, outboundId: 42, sentAt: T0 + 5, deadlineAt: T0 + 60_005, nextAttemptAt: null });
    r = evolveRequest(r, { type: "picked-up", at: T0 + 6 });
    expect(r).toMatchObject({ status: "WAITING", pickedUpAt: T0 + 6 });
    r = evolveRequest(r, { type: "answered", at: T0 + 7, match });
    expect(r).toMatchObject({ status: "DONE", version: 5, closedAt: T0 + 7, closeReason: "answered", match });
  });

  it("a reply can come before the pick-up is seen: SENT → DONE; any open status can expire", () => {
    const sent = evolveRequest(registered(), EVENTS[2]!);
    expect(evolveRequest(sent, { type: "answered", at: T0, match }).status).toBe("DONE");
    expect(evolveRequest(registered(), { type: "expired", at: T0, reason: "superseded" })).toMatchObject({ status: "EXPIRED", closeReason: "superseded" });
    expect(evolveRequest(sent, { type: "expired", at: T0, reason: "timeout" }).status).toBe("EXPIRED");
  });

  it("a closed request accepts no event at all, and a request not sent cannot be answered", () => {
    const sent = evolveRequest(registered(), EVENTS[2]!);
    for (const closed of [evolveRequest(sent, { type: "answered", at: T0, match }), evolveRequest(sent, { type: "expired", at: T0, reason: "timeout" })]) {
      for (const e of EVENTS) expect(() => evolveRequest(closed, e)).toThrow(IllegalRequestTransitionError);
    }
    expect(() => evolveRequest(registered(), { type: "answered", at: T0, match })).toThrow(IllegalRequestTransitionError);
    expect(() => evolveRequest(registered(), { type: "picked-up", at: T0 })).toThrow(IllegalRequestTransitionError);
    expect(() => evolveRequest(sent, EVENTS[0]!)).toThrow(IllegalRequestTransitionError);
    expect(toOpenRequest(registered())).toBeUndefined();
    expect(toOpenRequest(sent)).toEqual({ requestId: "1", kind: "RQFD", from: "2026-03-06T00:00", to: "2026-03-06T23:59", sentAt: T0 + 1, echo: { SNDR: "MSGX", SEQN: "000001" } });
  });
});

describe("decideRequest", () => {
  it("sends a fresh request at once, waits out a lease or retry, looks up before any later attempt, expires at the deadline", () => {
    const r = registered();
    expect(decideRequest(r, T0)).toEqual({ type: "send", lookupFirst: false });
    const claimed = evolveRequest(r, { type: "send-attempted", at: T0, leaseUntil: T0 + 30_000 });
    expect(decideRequest(claimed, T0 + 29_999)).toEqual({ type: "wait", until: T0 + 30_000 });
    expect(decideRequest(claimed, T0 + 30_000)).toEqual({ type: "send", lookupFirst: true });
    const failed = evolveRequest(claimed, { type: "send-failed", at: T0 + 1, error: "down", retryAt: T0 + 5_000 });
    expect(decideRequest(failed, T0 + 4_999)).toEqual({ type: "wait", until: T0 + 5_000 });
    expect(decideRequest(failed, T0 + 5_000)).toEqual({ type: "send", lookupFirst: true });
    expect(decideRequest(failed, T0 + 60_000)).toEqual({ type: "expire" });
  });

  it("observes SENT, waits on WAITING until its deadline, ignores closed ones", () => {
    const sent = evolveRequest(registered(), EVENTS[2]!);
    expect(decideRequest(sent, T0 + 2)).toEqual({ type: "observe" });
    const waiting = evolveRequest(sent, { type: "picked-up", at: T0 + 2 });
    expect(decideRequest(waiting, T0 + 3)).toEqual({ type: "wait", until: sent.deadlineAt });
    expect(decideRequest(waiting, sent.deadlineAt)).toEqual({ type: "expire" });
    expect(decideRequest(evolveRequest(sent, { type: "answered", at: T0, match }), T0 + 10 ** 9)).toEqual({ type: "wait", until: null });
    expect(RequestStatus.WAITING).toBe("WAITING");
  });
});

describe("our SEQN counter and options", () => {
  it("counts up, writes 0 after the last value, then starts at the first again (and from outside the range)", () => {
    const range = { seqnFirst: 1, seqnLast: 999_999 };
    expect(nextSeqn(null, range)).toBe(1);
    expect(nextSeqn(41, range)).toBe(42);
    expect(nextSeqn(999_998, range)).toBe(999_999);
    expect(nextSeqn(999_999, range)).toBe(0); // WIRE.md: 000001…999999, then 000000 and on
    expect(nextSeqn(0, range)).toBe(1);
    expect(nextSeqn(5_000_000, range)).toBe(1);
    expect(nextSeqn(3, { seqnFirst: 10, seqnLast: 12 })).toBe(10);
  });

  it("takes SNDR, counter range, timeouts and routing ids from the options, and refuses bad ones", () => {
    expect(requestOptions()).toEqual(DEFAULT_REQUEST_OPTIONS);
    expect(requestOptions({ sndr: "FIH1", seqnFirst: 100, seqnLast: 199 })).toMatchObject({ sndr: "FIH1", seqnFirst: 100, seqnLast: 199 });
    expect(() => requestOptions({ sndr: "toolong" })).toThrow(RangeError);
    expect(() => requestOptions({ sndr: "ms" })).toThrow(RangeError);
    expect(() => requestOptions({ seqnFirst: 10, seqnLast: 9 })).toThrow(RangeError);
    expect(() => requestOptions({ timeoutMs: 0 })).toThrow(RangeError);
    expect(() => requestOptions({ routingIds: { RQFD: "", RQRD: "X" } })).toThrow(RangeError);
  });
});
