import { describe, expect, it } from "vitest";
import { decodeMessage } from "../../src/codec/xml-codec.js";
import { RequestsWorld, refMsg, schdResp } from "./requests-world.js";

const RANGE = { kind: "RQFD", from: "2026-03-06T00:00", to: "2026-03-06T23:59" } as const;

describe("replies through the pump (SPEC §2.3 RESP rule, §2.6)", () => {
  it("a matching RESP is applied and closes its request in the same commit, with the rule audited", async () => {
    const w = new RequestsWorld();
    const r = await w.coordinator.request(RANGE, "ops");
    w.clock.advance(60_000);
    const id = await w.arrive(schdResp(w.nextSeqn(), w.dttm(), ["06MAR260930", "06MAR262359"]));
    await w.drain();
    expect(await w.outcome(id)).toBe("SUCCEEDED");
    expect(w.store.tables.flights.size).toBe(2);
    const done = await w.requests.get(r.requestId);
    expect(done).toMatchObject({ status: "DONE", closeReason: "answered", closedAt: w.clock.now(), match: { rule: "fallback", msgId: id, replyDttm: "20260305080100" } });
    expect(done?.match?.detail).toMatch(/^fallback \(no echo\): same type RQFD, open, reply DTTM 20260305080100/);
  });

  it("without a match a RESP changes nothing: unsolicited, older than sentAt, wrong type, late after DONE or EXPIRED", async () => {
    const w = new RequestsWorld({ timeoutMs: 60_000 });
    const unsolicited = await w.arrive(schdResp(w.nextSeqn(), w.dttm(), ["06MAR260930"]));
    await w.drain();
    await w.coordinator.request({ kind: "RQRD", rtype: "ARPT" }, "ops");
    const wrongType = await w.arrive(schdResp(w.nextSeqn(), w.dttm(1_000), ["06MAR260930"]));
    w.clock.advance(5_000);
    const r = await w.coordinator.request(RANGE, "ops");
    const older = await w.arrive(schdResp(w.nextSeqn(), w.dttm(-1_000), ["06MAR260930"]));
    const answer = await w.arrive(schdResp(w.nextSeqn(), w.dttm(1_000), ["06MAR261000"]));
    const late = await w.arrive(schdResp(w.nextSeqn(), w.dttm(2_000), ["06MAR261100"]));
    await w.drain();
    expect([await w.outcome(unsolicited), await w.outcome(wrongType), await w.outcome(older), await w.outcome(answer), await w.outcome(late)]).toEqual([
      "SKIPPED:no-request",
      "SKIPPED:no-request",
      "SKIPPED:no-request",
      "SUCCEEDED",
      "SKIPPED:no-request",
    ]);
    const closed = await w.requests.get(r.requestId);
    expect(closed?.match?.msgId).toBe(answer);
    const again = await w.coordinator.request(RANGE, "ops");
    w.clock.advance(61_000);
    await w.coordinator.step();
    expect((await w.requests.get(again.requestId))?.status).toBe("EXPIRED");
    const afterExpiry = await w.arrive(schdResp(w.nextSeqn(), w.dttm(), ["06MAR260930"]));
    await w.drain();
    expect(await w.outcome(afterExpiry)).toBe("SKIPPED:no-request");
    expect(await w.requests.get(r.requestId)).toEqual(closed);
    expect([...w.store.tables.flights.keys()]).toEqual(["900000"]);
  });

  it("two replies in one run: the first closes the request, the second finds none", async () => {
    const w = new RequestsWorld();
    await w.coordinator.request(RANGE, "ops");
    const a = await w.arrive(schdResp(w.nextSeqn(), w.dttm(1_000), ["06MAR260930"]));
    const b = await w.arrive(schdResp(w.nextSeqn(), w.dttm(2_000), ["06MAR261030"]));
    const step = await w.pump.step();
    expect(step.did === "processed" && step.records.map((r) => r.msgId)).toEqual([a, b]);
    expect([await w.outcome(a), await w.outcome(b)]).toEqual(["SUCCEEDED", "SKIPPED:no-request"]);
  });

  it("a RESP outside the request's range is PROTOCOL; the request stays open for a proper answer", async () => {
    const w = new RequestsWorld();
    const r = await w.coordinator.request(RANGE, "ops");
    const bad = await w.arrive(schdResp(w.nextSeqn(), w.dttm(1_000), ["06MAR260930", "07MAR260000"]));
    await w.drain();
    expect(await w.outcome(bad)).toMatch(/^DEAD:RESP: FLID 900001 SODT 2026-03-07T00:00 outside request/);
    expect(w.store.tables.flights.size).toBe(0);
    expect((await w.requests.get(r.requestId))?.status).toBe("SENT");
  });

  it("a matched RESP whose every record is older than our state still answers the request", async () => {
    const w = new RequestsWorld();
    await w.arrive(refMsg(w.nextSeqn(), w.dttm(), "ARPT", "DNLD", []));
    const r = await w.coordinator.request(RANGE, "ops");
    const newer = await w.arrive(schdResp(w.nextSeqn(), w.dttm(10_000), ["06MAR260930"]).replace("<TYPE>SCHD</TYPE><STYP>RESP</STYP>", "<TYPE>SCHD</TYPE><STYP>DNLD</STYP>"));
    const stale = await w.arrive(schdResp(w.nextSeqn(), w.dttm(5_000), ["06MAR260930"]));
    await w.drain();
    expect(await w.outcome(newer)).toBe("SUCCEEDED");
    expect(await w.outcome(stale)).toBe("SKIPPED:stale:900000");
    expect((await w.requests.get(r.requestId))?.match?.msgId).toBe(stale);
  });
});

describe("reference data into REF_MASTER", () => {
  it("an RQRD reply upserts (RTYPE, RKEY) with its typed fields, publishes it and closes the request", async () => {
    const w = new RequestsWorld();
    const r = await w.coordinator.request({ kind: "RQRD", rtype: "ARPT" }, "ops");
    const id = await w.arrive(refMsg(w.nextSeqn(), w.dttm(1_000), "ARPT", "RESP", ["PEK", "CAN"]));
    await w.drain();
    expect(await w.outcome(id)).toBe("SUCCEEDED");
    expect(await w.references.get("ARPT", "PEK")).toEqual({ rtype: "ARPT", rkey: "PEK", fields: { ICCD: "name of PEK" }, deleted: false, version: 1, msgId: id, updatedAt: w.clock.now() });
    expect((await w.requests.get(r.requestId))?.status).toBe("DONE");
    expect(w.store.tables.events.map((e) => `${e.target} ${e.partitionKey} ${e.eventType}`)).toEqual(["KAFKA:ref ARPT:PEK UPSERT", "KAFKA:ref ARPT:CAN UPSERT"]);
  });

  it("an unsolicited reference RESP is SKIPPED no-request; DNLD/ADD/UPD/DEL apply unasked; DEL keeps a tombstone", async () => {
    const w = new RequestsWorld();
    const ids = [
      await w.arrive(refMsg(w.nextSeqn(), w.dttm(), "GLST", "RESP", ["A1"])),
      await w.arrive(refMsg(w.nextSeqn(), w.dttm(), "GLST", "DNLD", ["A1", "A2"])),
      await w.arrive(refMsg(w.nextSeqn(), w.dttm(), "GLST", "ADD", ["A3"])),
      await w.arrive(refMsg(w.nextSeqn(), w.dttm(), "GLST", "UPD", ["A1"]).replace("name of A1", "renamed")),
      await w.arrive(refMsg(w.nextSeqn(), w.dttm(), "GLST", "DEL", ["A2"])),
    ];
    await w.drain();
    expect(await Promise.all(ids.map((i) => w.outcome(i)))).toEqual(["SKIPPED:no-request", "SUCCEEDED", "SUCCEEDED", "SUCCEEDED", "SUCCEEDED"]);
    expect((await w.references.list({ rtype: "GLST", limit: 10 })).map((e) => `${e.rkey}:${String(e.fields["GTNM"])}`)).toEqual(["A1:renamed", "A3:name of A3"]);
    expect(await w.references.get("GLST", "A2")).toMatchObject({ deleted: true, version: 2, msgId: ids[4] });
  });

  it("a RECS mismatch is applied (RECS is untrustworthy); a repeated key is PROTOCOL and the request stays open", async () => {
    const w = new RequestsWorld();
    const r = await w.coordinator.request({ kind: "RQRD", rtype: "ARPT" }, "ops");
    const b = await w.arrive(refMsg(w.nextSeqn(), w.dttm(1_000), "ARPT", "RESP", ["PEK", "PEK"]));
    await w.drain();
    expect(await w.outcome(b)).toBe("DEAD:ARPT/RESP: key PEK twice in one package");
    expect(await w.references.types()).toEqual([]);
    expect((await w.requests.get(r.requestId))?.status).toBe("SENT");
    const a = await w.arrive(refMsg(w.nextSeqn(), w.dttm(1_000), "ARPT", "RESP", ["PEK", "CAN"], { recs: 3 }));
    await w.drain();
    expect(await w.outcome(a)).toBe("SUCCEEDED");
    expect(await w.references.types()).toEqual([{ rtype: "ARPT", live: 2 }]);
    expect((await w.requests.get(r.requestId))?.status).toBe("DONE");
  });

  it("REGN is reference data like any type: pushed DNLDs apply, a RESP only as the answer to an open RQRD REGN", async () => {
    const w = new RequestsWorld();
    const unasked = await w.arrive(refMsg(w.nextSeqn(), w.dttm(), "REGN", "RESP", ["B-5948"]));
    const push = await w.arrive(refMsg(w.nextSeqn(), w.dttm(), "REGN", "DNLD", ["B-5948", "B-1"]));
    await w.drain();
    const r = await w.coordinator.request({ kind: "RQRD", rtype: "REGN" }, "ops");
    const broken = await w.arrive(refMsg(w.nextSeqn(), w.dttm(1_000), "REGN", "RESP", ["B-1"]).replace("<RECS>1</RECS>", "<RECS>x</RECS>"));
    const answer = await w.arrive(refMsg(w.nextSeqn(), w.dttm(2_000), "REGN", "RESP", ["B-5948", "B-6120"]));
    await w.drain();
    expect(await Promise.all([unasked, push, broken].map((i) => w.outcome(i)))).toEqual(["SKIPPED:no-request", "SUCCEEDED", "DEAD:MSG: RECS \"x\" is not an integer"]);
    expect(await w.outcome(answer)).toBe("SUCCEEDED");
    // The RESP replaced the type: B-1 (from the DNLD) is deleted.
    expect((await w.references.list({ rtype: "REGN", limit: 10 })).map((e) => e.rkey)).toEqual(["B-5948", "B-6120"]);
    expect(await w.references.get("REGN", "B-1")).toMatchObject({ deleted: true, version: 2, msgId: answer });
    expect((await w.requests.get(r.requestId))?.match?.msgId).toBe(answer);
  });

  it("the codec reads every REGN subtype of reference data as reference data", () => {
    const kind = (raw: string) => {
      const d = decodeMessage(raw);
      return d.ok ? d.message.body.kind : d.errorClass;
    };
    expect(["RESP", "DNLD", "ADD", "UPD", "DEL"].map((styp) => kind(refMsg(1, "20260305080000", "REGN", styp, ["B-1"])))).toEqual(Array(5).fill("reference"));
  });
});
