import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DEFAULT_MAILBOX_NAMES } from "@msgx/adapters-mysql";
import { loadConfig, settingPaths } from "../src/config/load-config.js";

const root = new URL("../../../", import.meta.url);
const envExample = readFileSync(new URL(".env.example", root), "utf8");
const configDoc = readFileSync(new URL("docs/configuration.md", root), "utf8");

describe("configuration", () => {
  it("has the seed's defaults", () => {
    const c = loadConfig({ env: {} });
    expect(c.profile).toBe("embedded");
    expect(c.pipeline).toMatchObject({ pollIntervalMs: 1000, claimBatch: 50, maxAttempts: 5, backoffInitialMs: 1000, backoffMaxMs: 60000, headDeadlineMs: 600000 });
    expect(c.schd).toEqual({ flushPeriodMs: 3000, flushLimit: 500 });
    expect(c.identity.includeDayBoundary).toBe(false);
    expect(c.shadow).toBe(false);
    expect(c.history.sweepAt).toBe("03:30");
  });

  it("reads MSGX_* variables, and flags win over them", () => {
    const c = loadConfig({ env: { MSGX_PIPELINE_POLL_INTERVAL_MS: "250", MSGX_SHADOW: "true", MSGX_HTTP_PORT: "9000" }, overrides: { "http.port": "9100" } });
    expect(c.pipeline.pollIntervalMs).toBe(250);
    expect(c.shadow).toBe(true);
    expect(c.http.port).toBe(9100);
  });

  it("refuses unknown variables (a way to loosen producer safety, for one) with their names", () => {
    expect(() => loadConfig({ env: { MSGX_KAFKA_ACKS: "1", MSGX_KAFKA_IDEMPOTENT: "false" } })).toThrow(/MSGX_KAFKA_ACKS, MSGX_KAFKA_IDEMPOTENT/);
  });

  it("explains invalid values by path", () => {
    expect(() => loadConfig({ env: { MSGX_PIPELINE_CLAIM_BATCH: "0", MSGX_HTTP_PORT: "http" } })).toThrow(/pipeline\.claimBatch[\s\S]*http\.port|http\.port[\s\S]*pipeline\.claimBatch/);
  });

  it("takes the upstream's time zone as the mailbox adapter does: a fixed offset within ±14:00", () => {
    expect(loadConfig({ env: { MSGX_MYSQL_UPSTREAM_TIME_ZONE: "+08:00" } }).mysql.upstreamTimeZone).toBe("+08:00");
    expect(loadConfig({ env: {} }).mysql.upstreamTimeZone).toBe("+00:00");
    for (const bad of ["+8", "08:00", "+15:00", "+08:60", "Asia/Shanghai"]) {
      expect(() => loadConfig({ env: { MSGX_MYSQL_UPSTREAM_TIME_ZONE: bad } }), bad).toThrow(/mysql\.upstreamTimeZone/);
    }
  });

  it("names the mailbox tables and columns as the upstream's DDL unless told otherwise, by file or MSGX_* variable", () => {
    const c = loadConfig({ env: {} });
    expect(c.mysql.inbound).toEqual(DEFAULT_MAILBOX_NAMES.inbound);
    expect(c.mysql.outbound).toEqual(DEFAULT_MAILBOX_NAMES.outbound);
    expect(c.mysql.backfillSubsystem).toBe(true);
    const renamed = loadConfig({
      env: { MSGX_MYSQL_INBOUND_TABLE: "aodbinterface.cminmsgs", MSGX_MYSQL_INBOUND_COLUMNS_CLOB_MSG: "BODY", MSGX_MYSQL_OUTBOUND_COLUMNS_ROUTING_ID: "ROUTE" },
      overrides: { "mysql.outbound.columns.ackDateRecv": "ACKED_AT" },
    });
    expect(renamed.mysql.inbound).toEqual({ table: "aodbinterface.cminmsgs", columns: { ...DEFAULT_MAILBOX_NAMES.inbound.columns, clobMsg: "BODY" } });
    expect(renamed.mysql.outbound.columns).toEqual({ ...DEFAULT_MAILBOX_NAMES.outbound.columns, routingId: "ROUTE", ackDateRecv: "ACKED_AT" });
  });

  it("refuses a mailbox name the adapter would refuse, at start, naming the setting", () => {
    expect(() => loadConfig({ env: { MSGX_MYSQL_INBOUND_COLUMNS_STATUS: "STATUS OR 1=1" } })).toThrow(/mysql\.inbound\.columns\.status: not a plain column name/);
    expect(() => loadConfig({ env: { MSGX_MYSQL_OUTBOUND_TABLE: "a.b.c" } })).toThrow(/mysql\.outbound\.table: not a plain table name/);
    expect(() => loadConfig({ env: { MSGX_MYSQL_INBOUND_COLUMNS_DATE_PROCESSED: "CMINMSGS_DATE_RECEIVED" } })).toThrow(
      /mysql\.inbound\.columns\.dateProcessed: "CMINMSGS_DATE_RECEIVED" is already the dateReceived column/,
    );
    expect(() => loadConfig({ overrides: { "mysql.inbound.columns.body": "X" } })).toThrow(/mysql\.inbound\.columns/);
    expect(() => loadConfig({ env: { MSGX_MYSQL_INBOUND_TABLE: "cminmsgs;" } })).toThrow(expect.objectContaining({ kind: "CONFIG", retriable: false }));
  });

  it("production refuses every embedded stand-in", () => {
    expect(() => loadConfig({ env: { MSGX_PROFILE: "production" } })).toThrow(/pg\.url.*mysql\.url.*kafka\.brokers.*http\.token/s);
  });

  it(".env.example and docs/configuration.md list exactly the settings", () => {
    const names = settingPaths().map((s) => s.env).sort();
    const listed = (text: string) => [...new Set(text.match(/MSGX_[A-Z0-9_]+/g) ?? [])].filter((n) => !n.endsWith("_") && !["MSGX_CONFIG", "MSGX_REQUIRE_SERVICES", "MSGX_SEED", "MSGX_MODEL_RUNS"].includes(n)).sort();
    expect(listed(envExample)).toEqual(names);
    expect(listed(configDoc)).toEqual(names);
  });
});
