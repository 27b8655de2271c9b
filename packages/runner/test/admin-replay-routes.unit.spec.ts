/**
 * The replay routes of issue 23 through fastify's inject over the fakes, with the preflight the
 * runner wires (`createReplayAdmin`: the default configuration's codec and processors): the dry
 * run's changes and `expect`, 409 with the mismatches when a flight moved since the preview and
 * nothing written, the 400s of bad bodies and queries, dead letters by class, a message's raw
 * text (404 once the row is gone) and the audit trail newest first, paged.
 */
import { decideExhaust } from "@msgx/core/testing";
import { DEFAULT_RETRY_POLICY, InboxPoller, Pump, type Logger, type ProcessorTable } from "@msgx/core";
import { InMemoryMailbox, InMemoryPipelineStore, ManualClock, messageXml, RecordingLogger } from "@msgx/core/testing";
import { afterAll, describe, expect, it } from "vitest";
import type { AppParts } from "../src/app/app-parts.js";
import { messageHandling } from "../src/app/message-handling.js";
import { createReplayAdmin } from "../src/app/replay-admin.js";
import { loadConfig } from "../src/config/load-config.js";
import type { HttpContext } from "../src/http/http-context.js";
import { createHttpServer } from "../src/http/http-server.js";
import type { ReliableAdminApi } from "../src/reliable/reliable-admin.js";
import { injectJson, pipelineLessContext } from "./route-spec.js";

const TOKEN = "admin-token";
const AUTH = { authorization: `Bearer ${TOKEN}` };
let seqn = 1;
const sis = (type: string, styp: string, body: string) => messageXml({ sndr: "AODB", seqn: seqn++, dttm: "20260305020000", type, styp }, body);
const schdFlight = (flid: string) =>
  sis("SCHD", "DNLD", `<SCHD><RECS>1</RECS><FLTR><FLID>${flid}</FLID><ALCD>CZ</ALCD><FLNO>CZ${flid}</FLNO><MVIN>D</MVIN><SODT>05MAR260800</SODT><FLTY>W</FLTY><FLIN>D</FLIN><ACFT>321</ACFT></FLTR></SCHD>`);
const estt = (flid: string, value: string) => sis("FLOP", "ESTT", `<FLOP><FLID>${flid}</FLID><ESTT>${value}</ESTT></FLOP>`);

/** Flight 1 (v1) and message 2, an ESTT for it, DEAD(EXHAUSTED) after a processor bug; message 3 MALFORMED. */
async function world() {
  const clock = new ManualClock();
  const mailbox = new InMemoryMailbox(clock);
  const store = new InMemoryPipelineStore(clock);
  const logger = new RecordingLogger();
  const config = loadConfig({ env: {} });
  const handling = messageHandling(config);
  const broken = new Set<number>([2]);
  const processors: ProcessorTable = {
    ...handling.processors,
    flop: {
      flightsOf: (body) => handling.processors.flop!.flightsOf(body),
      apply: (body, ctx) => {
        if (broken.has(ctx.msgId)) throw new Error(`bug on ${ctx.msgId}`);
        return handling.processors.flop!.apply(body, ctx);
      },
    },
  };
  const deps = { mailbox, store, clock, logger: logger as Logger };
  const poller = new InboxPoller(deps, { batchSize: 50, gapGraceMs: 0, rescanEveryMs: 10_000, rescanWindow: 50 });
  const pump = new Pump({ ...deps, decode: handling.decode, processors, horizon: () => poller.horizon });
  const drain = async () => {
    while ((await poller.step()).full);
    for (let i = 0; i < 20; i++) if ((await pump.step()).did !== "processed") return;
  };
  mailbox.insert(schdFlight("1"));
  mailbox.insert(estt("1", "05MAR260830"));
  await drain();
  await store.transaction((tx) => tx.applyRun(decideExhaust((store.tables.records.get(2))!, "head deadline", { now: clock.now(), policy: DEFAULT_RETRY_POLICY })));
  mailbox.insert("<MSG><META>broken");
  await drain();
  broken.clear();
  const replay = createReplayAdmin({ store, mailbox } as unknown as AppParts, config, clock);
  const ctx = {
    ...pipelineLessContext(logger as Logger, TOKEN),
    metrics: async () => ({ contentType: "text/plain", body: "" }),
    reliable: {} as ReliableAdminApi,
    deadLetters: (q) => replay.deadLetters(q),
    deadLetterGroups: (idsPerGroup) => replay.deadLetterGroups(idsPerGroup),
    replayPreview: (sel) => replay.preflight(sel),
    replay: (sel, operator, options) => replay.replay(sel, operator, options),
    rawMessage: (msgId) => replay.raw(msgId),
    audits: (q) => replay.audits(q.limit, q.beforeAuditId),
  } satisfies HttpContext;
  const app = createHttpServer(ctx);
  apps.push(app);
  const call = (method: "GET" | "POST", url: string, body?: unknown) => injectJson(app, method, url, body, AUTH);
  return { store, mailbox, logger, call, drain };
}

const apps: ReturnType<typeof createHttpServer>[] = [];
afterAll(async () => {
  for (const app of apps) await app.close();
});

describe("POST /admin/replay: preflight and version guard", () => {
  it("a dry run shows each eligible message's outcome and field changes, and the expect guard; nothing changes", async () => {
    const w = await world();
    const res = await w.call("POST", "/admin/replay", { msgIds: [2, 3], dryRun: true });
    expect(res.status).toBe(200);
    expect(res.body!["expect"]).toStrictEqual({ "flight:1": 1 });
    const [two, three] = res.body!["preview"] as Record<string, any>[];
    expect(two).toMatchObject({ msgId: 2, eligible: true, outcome: { status: "SUCCEEDED", errorClass: null } });
    expect(two!["changes"]).toMatchObject([{ kind: "flight", key: "flight:1", currentVersion: 1, nextVersion: 2 }]);
    expect(two!["changes"][0].changes.map((c: { field: string }) => c.field)).toContain("fields.ESTT");
    expect(three).toMatchObject({ msgId: 3, eligible: false, errorClass: "MALFORMED" });
    expect(three).not.toHaveProperty("changes");
    expect(w.store.tables.records.get(2)?.status).toBe("DEAD");
  });

  it("409 with the mismatches when the flight moved since the preview; nothing written; the fresh guard applies", async () => {
    const w = await world();
    const dry = await w.call("POST", "/admin/replay", { msgIds: [2], dryRun: true });
    w.mailbox.insert(estt("1", "05MAR260945"));
    await w.drain();
    const refused = await w.call("POST", "/admin/replay", { msgIds: [2], operator: "alice", expect: dry.body!["expect"] });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: "conflict", message: expect.stringContaining("flight:1"), mismatches: [{ key: "flight:1", expected: 1, current: 2 }] });
    expect(w.store.tables.records.get(2)?.status).toBe("DEAD");
    expect((await w.call("GET", "/admin/audit")).body).toStrictEqual({ entries: [], next: null });
    expect(w.logger.lines.filter((l) => l.level === "warn").map((l) => [l.msg, l.fields])).toStrictEqual([
      ["replay refused: versions moved since the preview", { operator: "alice", mismatches: [{ key: "flight:1", expected: 1, current: 2 }] }],
    ]);

    const fresh = await w.call("POST", "/admin/replay", { msgIds: [2], dryRun: true });
    expect(fresh.body!["expect"]).toStrictEqual({ "flight:1": 2 });
    const applied = await w.call("POST", "/admin/replay", { msgIds: [2], operator: "alice", expect: fresh.body!["expect"] });
    expect([applied.status, applied.body]).toStrictEqual([200, { replayed: [2], refused: [] }]);
    const audit = await w.call("GET", "/admin/audit");
    expect(audit.body!["entries"]).toMatchObject([{ auditId: 1, operator: "alice", action: "replay", msgIds: [2] }]);
    expect(JSON.parse(audit.body!["entries"][0].detail)).toMatchObject({ operator: "alice", expect: { "flight:1": 2 } });
  });

  it("a dry run predicts SKIPPED stale for a message older than its flight's last DTTM, as the pump then decides", async () => {
    const w = await world();
    w.mailbox.insert(messageXml({ sndr: "AODB", seqn: seqn++, dttm: "20260305090000", type: "FLOP", styp: "ESTT" }, "<FLOP><FLID>1</FLID><ESTT>05MAR260945</ESTT></FLOP>"));
    await w.drain();
    const dry = await w.call("POST", "/admin/replay", { msgIds: [2], dryRun: true });
    expect(dry.body!["preview"]).toMatchObject([{ msgId: 2, eligible: true, outcome: { status: "SKIPPED", reason: "stale:1" }, changes: [] }]);
    await w.call("POST", "/admin/replay", { msgIds: [2], operator: "alice", expect: dry.body!["expect"] });
    await w.drain();
    expect(w.store.tables.records.get(2)).toMatchObject({ status: "SKIPPED", reason: "stale:1" });
  });

  it("400 for a body the route cannot take; never 500", async () => {
    const w = await world();
    const bad: [unknown, RegExp][] = [
      [{ msgIds: [2], operator: "  " }, /operator/],
      [{ msgIds: [2], expect: { "gate:1": 1 } }, /flight:<FLID>/],
      [{ msgIds: [2], expect: { "flight:1": -1 } }, /expect/],
      [{ msgIds: [2], expect: { "flight:1": "1" } }, /expect/],
      [{ msgIds: [2], expect: [1] }, /expect/],
      [{ dryRun: true }, /errorClasses and\/or msgIds/],
      [{ errorClasses: ["NOPE"] }, /errorClasses/],
      ["{not json", /./],
    ];
    for (const [body, message] of bad) {
      const res = await w.call("POST", "/admin/replay", body);
      expect([JSON.stringify(body), res.status], JSON.stringify(res.body)).toStrictEqual([JSON.stringify(body), 400]);
      expect(res.body!["message"]).toMatch(message);
    }
    expect(w.store.tables.records.get(2)?.status).toBe("DEAD");
  });
});

describe("dead letters by class, raw text, audit trail", () => {
  it("GET /admin/dead-letters?errorClass= keeps one class; an unknown class is 400", async () => {
    const w = await world();
    const all = await w.call("GET", "/admin/dead-letters");
    expect((all.body as unknown as { msgId: number }[]).map((r) => r.msgId)).toEqual([2, 3]);
    const exhausted = await w.call("GET", "/admin/dead-letters?errorClass=EXHAUSTED");
    expect((exhausted.body as unknown as { msgId: number; errorClass: string }[]).map((r) => [r.msgId, r.errorClass])).toEqual([[2, "EXHAUSTED"]]);
    expect((await w.call("GET", "/admin/dead-letters?errorClass=exhausted")).status).toBe(400);
  });

  it("GET /admin/dead-letters/groups groups by class and reason with counts and ids; a bad ids cap is 400", async () => {
    const w = await world();
    const res = await w.call("GET", "/admin/dead-letters/groups");
    expect([res.status, res.body]).toStrictEqual([
      200,
      {
        groups: [
          { errorClass: "EXHAUSTED", reason: expect.stringContaining("head deadline"), count: 1, msgIds: [2] },
          { errorClass: "MALFORMED", reason: expect.any(String), count: 1, msgIds: [3] },
        ],
      },
    ]);
    for (const q of ["ids=0", "ids=1001", "ids=x"]) expect((await w.call("GET", `/admin/dead-letters/groups?${q}`)).status, q).toBe(400);
  });

  it("GET /admin/messages/:msgId/raw gives the mailbox text and the decoded envelope; 404 when the row is gone; 400 for a bad id", async () => {
    const w = await world();
    const raw = await w.call("GET", "/admin/messages/2/raw");
    expect(raw.status).toBe(200);
    expect(raw.body).toMatchObject({ msgId: 2, xml: expect.stringContaining("<ESTT>05MAR260830</ESTT>"), meta: { type: "FLOP", styp: "ESTT" } });
    expect((await w.call("GET", "/admin/messages/3/raw")).body).toStrictEqual({ msgId: 3, xml: "<MSG><META>broken", meta: null });
    const gone = await w.call("GET", "/admin/messages/99/raw");
    expect([gone.status, gone.body]).toStrictEqual([404, { error: "not found", message: "no such mailbox row" }]);
    expect((await w.call("GET", "/admin/messages/x/raw")).status).toBe(400);
  });

  it("GET /admin/audit pages newest first with next; bad limits are 400", async () => {
    const w = await world();
    for (const operator of ["a", "b", "c"]) await w.call("POST", "/admin/replay", { msgIds: [3], operator });
    const first = await w.call("GET", "/admin/audit?limit=2");
    expect((first.body!["entries"] as { operator: string }[]).map((e) => e.operator)).toEqual(["c", "b"]);
    expect(first.body!["next"]).toBe(2);
    const second = await w.call("GET", `/admin/audit?limit=2&after=${first.body!["next"]}`);
    expect((second.body!["entries"] as { operator: string }[]).map((e) => e.operator)).toEqual(["a"]);
    expect(second.body!["next"]).toBeNull();
    for (const q of ["limit=0", "limit=1001", "after=0", "after=-1", "limit=abc"]) expect((await w.call("GET", `/admin/audit?${q}`)).status, q).toBe(400);
    expect((await injectJson(apps.at(-1)!, "GET", "/admin/audit", undefined, {})).status).toBe(401);
  });
});
