/**
 * Upstream requests through the runner's admin surface, in process, on the embedded state: the
 * request goes to the embedded `coutmsgs`, a simulated upstream answers through the HTTP ingress,
 * the pump applies the answer and closes the request. The CLI's HTTP client is the one used.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpRequestAdmin } from "../src/commands/request-commands.js";
import { readJsonlTopic } from "../src/embedded/jsonl-delivery-port.js";
import { arptResp, eventually, replyDttm, schdResp, startInProcess, type InProcessRunner } from "./requests-world.js";

const send = (url: string, xml: string) => fetch(new URL("/cminmsgs/send", url), { method: "POST", headers: { "content-type": "application/xml" }, body: xml }).then((r) => r.text());
const admin = async <T>(url: string, path: string, init?: RequestInit): Promise<{ status: number; body: T }> => {
  const res = await fetch(new URL(path, url), init);
  return { status: res.status, body: (await res.json().catch(() => undefined)) as T };
};
const post = (body: unknown): RequestInit => ({ method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

describe("requests on the embedded runner (admin HTTP + CLI client)", () => {
  let r: InProcessRunner;
  beforeAll(async () => {
    r = await startInProcess();
  });
  afterAll(() => r.stop());

  it("RQFD to coutmsgs; the upstream's RESP is applied and closes it; an unsolicited RESP is skipped", async () => {
    const api = httpRequestAdmin(r.url, undefined);
    const request = await api.schedule("2026-03-06T00:00", "2026-03-06T23:59", "e2e");
    expect(request).toMatchObject({ status: "SENT", requestType: "RQFD", requestedBy: "e2e", seqn: 1 });
    // The embedded coutmsgs holds this one row (ids are 1-based and dense on a fresh table).
    const rows = await r.parts.outbound.find({ ids: [1, 2, 3, 4, 5, 6, 7, 8] });
    expect(rows.map((x) => [x.id, x.routingId, x.rawXml])).toEqual([[request.outboundId, "VIEWRQFD", request.rawXml]]);

    const answer = Number(await send(r.url, schdResp(480_001, replyDttm(), "900201", "06MAR260930")));
    const done = await eventually(async () => ((x) => (x?.status === "DONE" ? x : undefined))(await api.get(request.requestId)), "the request DONE");
    expect(done.match).toMatchObject({ rule: "fallback", msgId: answer });
    expect((await admin<{ fields: { SODT: string } }>(r.url, "/admin/flights/900201")).body.fields.SODT).toBe("2026-03-06T09:30");

    const unsolicited = Number(await send(r.url, schdResp(480_002, replyDttm(), "900202", "06MAR261030")));
    const skipped = await eventually(async () => ((m) => (m.body?.status === "SKIPPED" ? m.body : undefined))(await admin<{ status: string; reason: string }>(r.url, `/admin/messages/${unsolicited}`)), "the unsolicited RESP");
    expect(skipped.reason).toBe("no-request");
    expect((await admin(r.url, "/admin/flights/900202")).status).toBe(404);
    expect((await api.list({ limit: 10 })).map((x) => x.status)).toEqual(["DONE"]);
  });

  it("RQRD: the reply lands in REF_MASTER, readable through the admin routes, and is published on the ref topic", async () => {
    const api = httpRequestAdmin(r.url, undefined);
    const request = await api.reference("ARPT", "e2e");
    expect(request).toMatchObject({ status: "SENT", requestType: "RQRD/ARPT", routingId: "VIEWRQRD" });
    await send(r.url, arptResp(480_003, replyDttm()));
    await eventually(async () => ((x) => (x?.status === "DONE" ? x : undefined))(await api.get(request.requestId)), "the RQRD DONE");
    expect(await api.referenceTypes()).toEqual([{ rtype: "ARPT", live: 2 }]);
    expect((await api.referenceList({ rtype: "ARPT", limit: 10 })).map((e) => [e.rkey, e.fields["ANAM"]])).toEqual([
      ["CAN", null],
      ["PEK", "Beijing Capital"],
    ]);
    expect(await api.referenceGet("ARPT", "PEK")).toMatchObject({ rtype: "ARPT", rkey: "PEK", deleted: false });
    expect(await api.referenceGet("ARPT", "XXX")).toBeUndefined();
    expect((await admin<{ entries: unknown[]; next: string }>(r.url, "/admin/reference/ARPT?limit=1")).body).toMatchObject({ next: "CAN" });
    // The embedded broker (events/<topic>.jsonl) gets the reference topic from its own dispatcher.
    const published = await eventually(async () => ((x) => (x.length === 2 ? x : undefined))(readJsonlTopic(r.dataDir, "ref")), "two records on the ref topic");
    expect(published.map((x) => [x.key, x.headers["msgx-event-type"], x.value === null ? null : (JSON.parse(x.value) as { fields: unknown }).fields])).toEqual([
      ["ARPT:PEK", "UPSERT", { ANAM: "Beijing Capital" }],
      ["ARPT:CAN", "UPSERT", { ANAM: null }],
    ]);
  });

  it("a newer request of a type expires the open one; bad input is 400; the list filters by status", async () => {
    const api = httpRequestAdmin(r.url, undefined);
    const a = await api.schedule("2026-03-07T00:00", "2026-03-07T23:59", "e2e");
    const b = await api.schedule("2026-03-08T00:00", "2026-03-08T23:59", "e2e");
    expect(b.seqn).toBe(a.seqn + 1);
    expect(await api.get(a.requestId)).toMatchObject({ status: "EXPIRED", closeReason: "superseded" });
    expect((await admin<string>(r.url, "/admin/requests/schedule", post({ from: "2026-03-08T00:00", to: "2026-03-07T00:00" }))).status).toBe(400);
    expect((await admin<string>(r.url, "/admin/requests/ref", post({ rtype: "lower" }))).status).toBe(400);
    expect((await admin<string>(r.url, "/admin/requests?status=NOPE")).status).toBe(400);
    await expect(api.reference("bad!", "e2e")).rejects.toThrow(/HTTP 400/);
    expect((await api.list({ limit: 10, statuses: ["EXPIRED"] })).map((x) => x.requestId)).toEqual([a.requestId]);
    expect(await api.get("424242")).toBeUndefined();
  });
});

describe("requests on a shadow runner", () => {
  it("asks nothing upstream (409) and still reads", async () => {
    const r = await startInProcess({ shadow: "true" });
    try {
      const res = await admin<string>(r.url, "/admin/requests/schedule", post({ from: "2026-03-06T00:00", to: "2026-03-06T23:59" }));
      expect(res.status).toBe(409);
      expect((await admin<unknown[]>(r.url, "/admin/requests")).body).toEqual([]);
    } finally {
      await r.stop();
    }
  });
});
