import { describe, expect, it } from "vitest";
import type { OpenRequest } from "../../src/requests/open-request.js";
import { matchReply, MatchRule } from "../../src/requests/reply-match.js";

const at = Date.UTC(2026, 2, 5, 1, 16, 20); // DTTM 20260305091620 at +08:00
const rq = (requestId: string, sentAt: number, extra: Partial<OpenRequest> = {}): OpenRequest => ({ requestId, kind: "RQFD", sentAt, echo: { SNDR: "MSGX", SEQN: requestId }, ...extra });
const opts = { airportUtcOffsetMinutes: 480 };

describe("reply matching (SPEC §2.6)", () => {
  it("falls back to the open request of the same type sent at or before the reply, and says so", () => {
    const m = matchReply([rq("7", at - 60_000), rq("8", at - 1, { kind: "RQRD", rtype: "ARPT" })], { requestType: "RQFD", dttm: "20260305091620" }, opts);
    expect(m).toMatchObject({ request: { requestId: "7" }, rule: MatchRule.FALLBACK, replyAt: at });
    expect(m?.detail).toBe("fallback (no echo): same type RQFD, open, reply DTTM 20260305091620 (+08:00 → 2026-03-05T01:16:20.000Z) ≥ sentAt 2026-03-05T01:15:20.000Z");
    expect(matchReply([rq("8", at - 1, { kind: "RQRD", rtype: "ARPT" })], { requestType: "RQRD/ARPT", dttm: "20260305091620" }, opts)?.request.requestId).toBe("8");
  });

  it("never takes a reply older than the request: compared as instants, zones normalized", () => {
    expect(matchReply([rq("1", at)], { requestType: "RQFD", dttm: "20260305091620" }, opts)?.request.requestId).toBe("1");
    expect(matchReply([rq("1", at + 1)], { requestType: "RQFD", dttm: "20260305091620" }, opts)).toBeUndefined();
    // The same wall-clock DTTM read at UTC is 8 hours later: now the request is older than it.
    expect(matchReply([rq("1", at + 1)], { requestType: "RQFD", dttm: "20260305091620" }, { airportUtcOffsetMinutes: 0 })?.rule).toBe("fallback");
    expect(matchReply([rq("1", 0)], { requestType: "RQFD", dttm: "2026030509162" }, opts)).toBeUndefined();
  });

  it("matches a wrong type to nothing", () => {
    expect(matchReply([rq("1", 0)], { requestType: "RQRD/ARPT", dttm: "20260305091620" }, opts)).toBeUndefined();
    expect(matchReply([rq("1", 0, { kind: "RQRD", rtype: "GATE" })], { requestType: "RQRD/ARPT", dttm: "20260305091620" }, opts)).toBeUndefined();
  });

  it("an echoing reply is matched exactly on what it echoes, and never falls back", () => {
    const open = [rq("1", 0), rq("2", 0, { kind: "RQRD", rtype: "ARPT" })];
    expect(matchReply(open, { requestType: "RQFD", dttm: "20260305091620", echo: { SEQN: "1" } }, opts)).toMatchObject({ rule: "exact", request: { requestId: "1" } });
    expect(matchReply(open, { requestType: "RQFD", dttm: "20260305091620", echo: { SEQN: "1" } }, opts)?.detail).toBe("exact: reply echoes SEQN=1 of request 1 (RQFD)");
    // Echoes a request that is not open (closed or someone else's): no match, no fallback.
    expect(matchReply(open, { requestType: "RQFD", dttm: "20260305091620", echo: { SEQN: "99" } }, opts)).toBeUndefined();
    // Echo fields are compared by type too.
    expect(matchReply(open, { requestType: "RQFD", dttm: "20260305091620", echo: { SEQN: "2" } }, opts)).toBeUndefined();
  });
});
