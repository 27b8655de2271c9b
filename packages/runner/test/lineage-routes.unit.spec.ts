/**
 * `/admin/flights/<FLID>/lineage` and `/admin/reference/<RTYPE>/<RKEY>/lineage` through fastify's
 * inject on the runner's own server over the in-memory lineage reader: the page shape, paging,
 * 404 for a key with no version, 400 for bad params (never a 500), 401 without the token.
 */
import { emptyRunDecision, EventType, ProcStatus, Target, type Logger, type OutboxEventDraft } from "@msgx/core";
import { newProcRecord } from "@msgx/core/testing";
import { InMemoryLineageReader, InMemoryPipelineStore, ManualClock, RecordingLogger } from "@msgx/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HttpContext } from "../src/http/http-context.js";
import { createHttpServer } from "../src/http/http-server.js";
import { injectJson, pipelineLessContext } from "./route-spec.js";

const TOKEN = "admin-token";
const ADMIN = { authorization: `Bearer ${TOKEN}` };

const store = new InMemoryPipelineStore(new ManualClock());
const ctx = {
  ...pipelineLessContext(new RecordingLogger() as Logger, TOKEN),
  metrics: async () => ({ contentType: "text/plain", body: "" }),
  reliable: {} as HttpContext["reliable"],
  lineage: new InMemoryLineageReader(store),
} satisfies HttpContext;
const app = createHttpServer(ctx);

async function processed(msgId: number, type: string, styp: string, events: OutboxEventDraft[]): Promise<void> {
  await store.enqueue([{ msgId, receivedAt: 0 }], { horizon: msgId });
  const meta = { sndr: "AODB", seqn: msgId, dttm: "20260305064210", type, styp };
  await store.transaction((tx) => tx.applyRun({ ...emptyRunDecision, records: [{ ...newProcRecord(msgId, 0, 0), status: ProcStatus.SUCCEEDED, meta }], events }));
}

const gate = (version: number, msgId: number, gate: string): OutboxEventDraft[] =>
  [Target.MSG, Target.SCHD].map((target) => ({ target, partitionKey: "900101", eventType: EventType.UPSERT, stateVersion: version, payload: { stateVersion: version, gate }, sourceMsgId: msgId, traceparent: null }));

beforeAll(async () => {
  await processed(1, "SCHD", "DNLD", gate(1, 1, "A22"));
  await processed(2, "FLOP", "GTDT", gate(2, 2, "A25"));
  await processed(3, "FLOP", "GTDT", gate(3, 3, "B01"));
  await processed(4, "AIRL", "UPD", [{ target: Target.REF, partitionKey: "AIRL:CA", eventType: EventType.UPSERT, stateVersion: 7, payload: { NAME: "Air China" }, sourceMsgId: 4, traceparent: null }]);
  await app.ready();
});
afterAll(() => app.close());

const get = (url: string, headers: Record<string, string> = ADMIN) => injectJson(app, "GET", url, undefined, headers);

describe("GET /admin/flights/:flid/lineage", () => {
  it("lists the versions newest first with source, events and changes; default limit 50, next null", async () => {
    const res = await get("/admin/flights/900101/lineage");
    expect(res.status).toBe(200);
    expect(res.body!["flid"]).toBe("900101");
    expect(res.body!["next"]).toBeNull();
    const versions = res.body!["versions"] as { version: number; source: { msgId: number; type: string; subtype: string }; events: { target: string; partition: null }[]; changes: unknown[] }[];
    expect(versions.map((v) => [v.version, v.source.msgId, v.source.type, v.source.subtype, v.events.map((e) => e.target)])).toStrictEqual([
      [3, 3, "FLOP", "GTDT", ["KAFKA:msg", "KAFKA:schd"]],
      [2, 2, "FLOP", "GTDT", ["KAFKA:msg", "KAFKA:schd"]],
      [1, 1, "SCHD", "DNLD", ["KAFKA:msg", "KAFKA:schd"]],
    ]);
    expect(versions[0]!.changes).toStrictEqual([
      { field: "stateVersion", before: 2, after: 3 },
      { field: "gate", before: "A25", after: "B01" },
    ]);
    expect(versions[0]!.events[0]!.partition).toBeNull();
  });

  it("pages with limit and before", async () => {
    const first = await get("/admin/flights/900101/lineage?limit=2");
    expect((first.body!["versions"] as { version: number }[]).map((v) => v.version)).toStrictEqual([3, 2]);
    expect(first.body!["next"]).toBe(2);
    const second = await get("/admin/flights/900101/lineage?limit=2&before=2");
    expect((second.body!["versions"] as { version: number }[]).map((v) => v.version)).toStrictEqual([1]);
    expect(second.body!["next"]).toBeNull();
    // Past the oldest version: an empty page, not a 404 (the flight has versions).
    expect(await get("/admin/flights/900101/lineage?before=1")).toStrictEqual({ status: 200, body: { flid: "900101", versions: [], next: null } });
  });

  it("404 for a flight with no stored version", async () => {
    const res = await get("/admin/flights/900999/lineage");
    expect(res).toStrictEqual({ status: 404, body: { error: "not found", message: "no version of flight 900999 is stored" } });
  });

  it.each([
    ["/admin/flights/CA1234/lineage", "path flid"],
    ["/admin/flights/900101/lineage?limit=0", "query limit"],
    ["/admin/flights/900101/lineage?limit=501", "query limit"],
    ["/admin/flights/900101/lineage?limit=1e2", "query limit"],
    ["/admin/flights/900101/lineage?before=0", "query before"],
    ["/admin/flights/900101/lineage?before=-1", "query before"],
  ])("400 for %s", async (url, where) => {
    const res = await get(url);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: "bad request" });
    expect(String(res.body!["message"])).toContain(where);
  });

  it("401 without the token", async () => {
    expect((await get("/admin/flights/900101/lineage", {})).status).toBe(401);
  });
});

describe("GET /admin/reference/:rtype/:rkey/lineage", () => {
  it("lists a reference entry's versions; 404 for one with none", async () => {
    const res = await get("/admin/reference/AIRL/CA/lineage");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ rtype: "AIRL", rkey: "CA", next: null, versions: [{ version: 7, source: { msgId: 4, type: "AIRL", subtype: "UPD" }, changes: [{ field: "NAME", after: "Air China" }] }] });
    expect((await get("/admin/reference/AIRL/CX/lineage")).status).toBe(404);
    expect((await get("/admin/reference/AIRL/CA/lineage?limit=x")).status).toBe(400);
  });
});
