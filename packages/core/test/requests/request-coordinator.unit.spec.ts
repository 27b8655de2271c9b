import { describe, expect, it } from "vitest";
import { silentLogger } from "../../src/runtime/logger.js";
import { SimulatedCrashMarker } from "../../src/runtime/simulated-crash.js";
import { RequestCoordinator } from "../../src/requests/request-coordinator.js";
import { RequestInputError } from "../../src/requests/request-input-error.js";
import { RequestsWorld } from "./requests-world.js";

const RANGE = { kind: "RQFD", from: "2026-03-06T00:00", to: "2026-03-06T23:59" } as const;

describe("RequestCoordinator", () => {
  it("registers with our SNDR and the next SEQN; a new request of a type expires the open one; other types stay open", async () => {
    const w = new RequestsWorld({ sndr: "FIH1", seqnFirst: 5, seqnLast: 6 });
    const a = await w.coordinator.register(RANGE, "ops");
    const b = await w.coordinator.register({ kind: "RQRD", rtype: "ARPT" }, "ops");
    const c = await w.coordinator.register(RANGE, "ops");
    expect([a.request.seqn, b.request.seqn, c.request.seqn]).toEqual([5, 6, 0]); // after the last: 0, then the first again
    expect(a.request.rawXml).toContain("<SNDR>FIH1</SNDR><SEQN>000005</SEQN><DTTM>20260305080000</DTTM><TYPE>RQFD</TYPE>");
    expect(c.superseded).toMatchObject({ requestId: a.request.requestId, status: "EXPIRED", closeReason: "superseded" });
    expect(await w.requests.get(a.request.requestId)).toEqual(c.superseded);
    expect((await w.requests.open()).map((r) => r.requestType)).toEqual(["RQRD/ARPT", "RQFD"]);
  });

  it("refuses bad parameters before anything is written", async () => {
    const w = new RequestsWorld();
    await expect(w.coordinator.request({ kind: "RQFD", from: "2026-03-07T00:00", to: "2026-03-06T00:00" }, "ops")).rejects.toThrow(RequestInputError);
    await expect(w.coordinator.request({ kind: "RQRD", rtype: "bad!" }, "ops")).rejects.toThrow(RequestInputError);
    expect(await w.requests.list({ limit: 10 })).toEqual([]);
    expect(w.outbound.rows).toEqual([]);
  });

  it("marks SENT only with the id of a confirmed COUTMSGS row", async () => {
    const w = new RequestsWorld();
    const r = await w.coordinator.request(RANGE, "ops");
    expect(w.outbound.rows).toEqual([expect.objectContaining({ id: r.outboundId, routingId: "VIEWRQFD", rawXml: r.rawXml })]);
    expect(r).toMatchObject({ status: "SENT", sendAttempts: 1, sentAt: w.clock.now(), deadlineAt: w.clock.now() + 15 * 60_000 });
    const ref = await w.coordinator.request({ kind: "RQRD", rtype: "ARPT" }, "ops");
    expect(w.outbound.rows[1]).toMatchObject({ routingId: "VIEWRQRD", rawXml: ref.rawXml });
  });

  it("mailbox down: stays REGISTERED with the error; the retry looks the row up first, then inserts once", async () => {
    const w = new RequestsWorld();
    w.outbound.faults.setDown(true);
    const r = await w.coordinator.request(RANGE, "ops");
    expect(r).toMatchObject({ status: "REGISTERED", sendAttempts: 1, outboundId: null });
    expect(r.lastError).toContain("down");
    expect((await w.coordinator.step()).next).toBe(w.clock.now() + 5_000);
    w.outbound.faults.setDown(false);
    w.clock.advance(5_000);
    w.outbound.faults.failNext("find", 1, "DEPENDENCY_UNAVAILABLE");
    expect((await w.coordinator.step()).failed).toEqual([r.requestId]);
    expect(w.outbound.rows).toEqual([]);
    w.clock.advance(5_000);
    expect((await w.coordinator.step()).sent).toEqual([r.requestId]);
    expect(w.outbound.rows).toHaveLength(1);
    expect(await w.requests.get(r.requestId)).toMatchObject({ status: "SENT", sendAttempts: 3, lastError: null, outboundId: w.outbound.rows[0]!.id });
  });

  it("commit outcome unknown: the row did commit; the next attempt finds it and sends nothing again", async () => {
    const w = new RequestsWorld();
    w.outbound.commitUnknownNext = true;
    const r = await w.coordinator.request(RANGE, "ops");
    expect(r.status).toBe("REGISTERED");
    w.clock.advance(5_000);
    await w.coordinator.step();
    expect(w.outbound.rows).toHaveLength(1);
    expect(await w.requests.get(r.requestId)).toMatchObject({ status: "SENT", outboundId: w.outbound.rows[0]!.id, sentAt: w.outbound.rows[0]!.insertedAt });
  });

  it.each(["request.after-insert", "request.after-claim"] as const)("a crash at %s is recovered after the lease, with exactly one row", async (point) => {
    const w = new RequestsWorld();
    const { request } = await w.coordinator.register(RANGE, "ops");
    w.failpoint = point;
    await expect(w.coordinator.step()).rejects.toBeInstanceOf(SimulatedCrashMarker);
    w.restart();
    expect(await w.coordinator.step()).toMatchObject({ sent: [], next: w.clock.now() + 120_000 });
    w.clock.advance(120_000);
    expect((await w.coordinator.step()).sent).toEqual([request.requestId]);
    expect(w.outbound.rows).toHaveLength(1);
    expect(await w.requests.get(request.requestId)).toMatchObject({ status: "SENT", sendAttempts: 2, outboundId: w.outbound.rows[0]!.id });
  });

  it("two processes stepping at once send a request once (the attempt is claimed by compare-and-set)", async () => {
    const w = new RequestsWorld();
    const { request } = await w.coordinator.register(RANGE, "ops");
    const twin = new RequestCoordinator({ store: w.requests, outbound: w.outbound, clock: w.clock, logger: silentLogger });
    const [x, y] = await Promise.all([w.coordinator.step(), twin.step()]);
    expect([...x.sent, ...y.sent]).toEqual([request.requestId]);
    expect(w.outbound.rows).toHaveLength(1);
  });

  it("expires at the deadline: unsent after registration + timeout, sent after sentAt + timeout", async () => {
    const w = new RequestsWorld({ timeoutMs: 60_000 });
    w.outbound.faults.setDown(true);
    const a = await w.coordinator.request(RANGE, "ops");
    w.outbound.faults.setDown(false);
    w.clock.advance(10_000);
    const b = await w.coordinator.request({ kind: "RQRD", rtype: "ARPT" }, "ops");
    expect(b.status).toBe("SENT");
    w.clock.advance(50_000);
    const step = await w.coordinator.step();
    expect(step.expired).toEqual([a.requestId]);
    expect(w.outbound.rows.map((r) => r.rawXml)).toEqual([b.rawXml]);
    expect(step.next).toBe(b.sentAt! + 60_000);
    w.clock.advance(10_000);
    expect((await w.coordinator.step()).expired).toEqual([b.requestId]);
    expect(await w.requests.get(b.requestId)).toMatchObject({ status: "EXPIRED", closeReason: "timeout", closedAt: w.clock.now() });
    expect((await w.coordinator.step()).next).toBeNull();
  });

  it("SENT → WAITING when the upstream stamps DATE_SENT on our row", async () => {
    const w = new RequestsWorld();
    const r = await w.coordinator.request(RANGE, "ops");
    expect((await w.coordinator.step()).pickedUp).toEqual([]);
    w.outbound.pickUp(r.outboundId!, w.clock.now() + 1_000);
    expect((await w.coordinator.step()).pickedUp).toEqual([r.requestId]);
    expect(await w.requests.get(r.requestId)).toMatchObject({ status: "WAITING", pickedUpAt: w.clock.now() + 1_000 });
  });
});
