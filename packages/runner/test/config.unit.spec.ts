import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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
    expect(c.pipeline).toMatchObject({ pollIntervalMs: 1000, claimBatch: 50, maxAttempts: 5, backoffInitialMs: 1000, backoffMaxMs: 60000, headDeadlineMs: 600000, pipelinedSteps: true, backfillDelayMs: 500, backfillBatch: 500 });
    expect(c.schd).toEqual({ flushPeriodMs: 3000, flushLimit: 500 });
    expect(c.identity.includeDayBoundary).toBe(false);
    expect(c.shadow).toBe(false);
    // WIRE.md "Mailbox tables": the STATUS = 'VALID' filter is ours and off by default.
    expect(c.mysql.onlyValidStatus).toBe(false);
    expect(c.history.sweepAt).toBe("03:30");
  });

  it("reads MSGX_* variables, and flags win over them", () => {
    const c = loadConfig({ env: { MSGX_PIPELINE_POLL_INTERVAL_MS: "250", MSGX_PIPELINE_PIPELINED_STEPS: "false", MSGX_SHADOW: "true", MSGX_HTTP_PORT: "9000" }, overrides: { "http.port": "9100" } });
    expect(c.pipeline.pollIntervalMs).toBe(250);
    expect(c.pipeline.pipelinedSteps).toBe(false);
    expect(c.shadow).toBe(true);
    expect(c.http.port).toBe(9100);
  });

  it("refuses unknown variables (a way to loosen producer safety, for one) with their names", () => {
    expect(() => loadConfig({ env: { MSGX_KAFKA_ACKS: "1", MSGX_KAFKA_IDEMPOTENT: "false" } })).toThrow(/MSGX_KAFKA_ACKS, MSGX_KAFKA_IDEMPOTENT/);
  });

  it("passes over the variables of the repository's own tools (scripts/kafka, the tests, the simulation, the benchmarks)", () => {
    const tools = { MSGX_KAFKA_HOME: "/tmp/kafka", MSGX_KAFKA_HEAP: "256m", MSGX_PG_HA_HOME: "/tmp/ha", MSGX_BENCH_PG_URL: "postgres://x", MSGX_SIM_SEED: "7", MSGX_TEST_PG_URL: "postgres://y" };
    expect(loadConfig({ env: { ...tools, MSGX_HTTP_PORT: "9000" } }).http.port).toBe(9000);
    expect(() => loadConfig({ env: { ...tools, MSGX_KAFKA_HOMES: "/tmp" } })).toThrow(/unknown environment settings: MSGX_KAFKA_HOMES \(/);
  });

  it("explains invalid values by path", () => {
    expect(() => loadConfig({ env: { MSGX_PIPELINE_CLAIM_BATCH: "0", MSGX_HTTP_PORT: "http" } })).toThrow(/pipeline\.claimBatch[\s\S]*http\.port|http\.port[\s\S]*pipeline\.claimBatch/);
  });

  it("refuses a connection URL a driver cannot use, naming the setting and never echoing the value", () => {
    // A URL may carry a password, so it is never echoed; a broker list carries none and is named.
    const refused = (env: Record<string, string>, setting: RegExp, echoed = false) => {
      let message = "";
      try {
        loadConfig({ env });
      } catch (e) {
        message = e instanceof Error ? e.message : String(e);
      }
      expect(message, JSON.stringify(env)).toMatch(setting);
      if (!echoed) for (const value of Object.values(env)) expect(message).not.toContain(value);
    };
    refused({ MSGX_PG_URL: "notaurl" }, /pg\.url[^\n]*not a URL/);
    refused({ MSGX_PG_URL: "mysql://root:s3cretpw@db:3306/x" }, /pg\.url[^\n]*must start with postgres:\/\/ or postgresql:\/\//);
    refused({ MSGX_MYSQL_URL: "postgres://u:s3cretpw@db/x" }, /mysql\.url[^\n]*must start with mysql:\/\//);
    refused({ MSGX_KAFKA_BROKERS: "kafka1" }, /kafka\.brokers: has "kafka1", not host:port/, true);
    refused({ MSGX_KAFKA_BROKERS: "kafka1:99999" }, /kafka\.brokers: has "kafka1:99999"/, true);
    const ok = loadConfig({ env: { MSGX_PG_URL: "postgresql://postgres@127.0.0.1:5432/test", MSGX_MYSQL_URL: "mysql://root@127.0.0.1:3306/test", MSGX_KAFKA_BROKERS: "127.0.0.1:9092, [::1]:9093" } });
    expect([ok.pg.url, ok.mysql.url, ok.kafka.brokers]).toEqual(["postgresql://postgres@127.0.0.1:5432/test", "mysql://root@127.0.0.1:3306/test", "127.0.0.1:9092, [::1]:9093"]);
  });

  it("takes libpq's host list as pg.url (a primary and its standby) and names what is wrong in one, never echoing it", () => {
    const pair = "postgres://msgx:s3cretpw@db1:5433,db2:5434/msgx?target_session_attrs=read-write";
    expect(loadConfig({ env: { MSGX_PG_URL: pair } }).pg.url).toBe(pair);
    for (const [bad, problem] of [
      ["postgres://msgx:s3cretpw@db1,,db2/msgx", /pg\.url[^\n]*host 2 of the host list is empty/],
      ["postgres://msgx:s3cretpw@db1:5433,db2:http/msgx", /pg\.url[^\n]*port of host 2/],
      ["postgres://msgx:s3cretpw@db1,db2/msgx?target_session_attrs=standby", /pg\.url[^\n]*target_session_attrs=standby picks a server msgx cannot write to/],
    ] as const) {
      let message = "";
      try {
        loadConfig({ env: { MSGX_PG_URL: bad } });
      } catch (e) {
        message = e instanceof Error ? e.message : String(e);
      }
      expect(message, bad).toMatch(problem);
      expect(message).not.toContain("s3cretpw");
    }
  });

  it("times the leadership lease: 10 s unless told, at least 300 ms", () => {
    expect(loadConfig({ env: {} }).pg.leaseTtlMs).toBe(10_000);
    expect(loadConfig({ env: { MSGX_PG_LEASE_TTL_MS: "2000" } }).pg.leaseTtlMs).toBe(2_000);
    expect(() => loadConfig({ env: { MSGX_PG_LEASE_TTL_MS: "299" } })).toThrow(/pg\.leaseTtlMs/);
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

  it("reads the codec, type policy, unsupported budget, identity and flight settings from the file and MSGX_* variables", () => {
    const d = loadConfig({ env: {} });
    expect(d.codec).toMatchObject({ limits: { maxBytes: 4 * 1024 * 1024, maxDepth: 32, maxAttributes: 32, maxElements: 200_000 }, numericTimeTolerance: false });
    expect(d.codec.referenceTypes).toHaveLength(23);
    expect(d.types).toEqual({ policy: {}, unsupported: { mode: "fail", attempts: 3, headMs: 10_000 } });
    expect(d.identity).toEqual({ includeDayBoundary: false, includeContent: false, onContentDiffers: "skip", window: 3 * 24 * 3_600_000 });
    expect(d.flight).toEqual({
      schdRecsCheck: "reject",
      schdAddUpdAsAdft: true,
      flopFaultScope: "message",
      flopEmptyCollection: "clear",
      flopRequiredEmpty: "reject",
      psdtKeepsStandRowFields: true,
    });

    const c = loadConfig({
      env: {
        MSGX_TYPES_POLICY: " SCHS=ignore, XYZ=ignore ,FLOP/ESTT=unsupported",
        MSGX_TYPES_UNSUPPORTED_MODE: "skip",
        MSGX_TYPES_UNSUPPORTED_ATTEMPTS: "2",
        MSGX_TYPES_UNSUPPORTED_HEAD_MS: "5000",
        MSGX_CODEC_REFERENCE_TYPES: "AIRL, ARPT",
        MSGX_CODEC_LIMITS_MAX_BYTES: "65536",
        MSGX_CODEC_NUMERIC_TIME_TOLERANCE: "1",
        MSGX_IDENTITY_ON_CONTENT_DIFFERS: "dead",
        MSGX_IDENTITY_INCLUDE_CONTENT: "true",
        MSGX_IDENTITY_WINDOW: "36h",
        MSGX_FLIGHT_SCHD_RECS_CHECK: "warn",
        MSGX_FLIGHT_SCHD_ADD_UPD_AS_ADFT: "false",
        MSGX_FLIGHT_FLOP_FAULT_SCOPE: "block",
        MSGX_FLIGHT_FLOP_EMPTY_COLLECTION: "reject",
        MSGX_FLIGHT_FLOP_REQUIRED_EMPTY: "clear",
        MSGX_FLIGHT_PSDT_KEEPS_STAND_ROW_FIELDS: "false",
      },
    });
    expect(c.types).toEqual({ policy: { SCHS: "ignore", XYZ: "ignore", "FLOP/ESTT": "unsupported" }, unsupported: { mode: "skip", attempts: 2, headMs: 5000 } });
    expect(c.codec).toMatchObject({ referenceTypes: ["AIRL", "ARPT"], limits: { maxBytes: 65536, maxDepth: 32 }, numericTimeTolerance: true });
    expect(c.identity).toEqual({ includeDayBoundary: false, includeContent: true, onContentDiffers: "dead", window: 36 * 3_600_000 });
    expect(c.flight).toEqual({
      schdRecsCheck: "warn",
      schdAddUpdAsAdft: false,
      flopFaultScope: "block",
      flopEmptyCollection: "reject",
      flopRequiredEmpty: "clear",
      psdtKeepsStandRowFields: false,
    });

    // The file takes the policy as an object and the reference types as an array.
    const file = join(mkdtempSync(join(tmpdir(), "msgx-config-")), "msgx.json");
    writeFileSync(file, JSON.stringify({ types: { policy: { LDM: "unsupported" } }, codec: { referenceTypes: ["REGN"] } }));
    const f = loadConfig({ file, env: {} });
    expect(f.types.policy).toEqual({ LDM: "unsupported" });
    expect(f.codec.referenceTypes).toEqual(["REGN"]);
  });

  it("takes identity.window as days or a number with a unit, in milliseconds once read, and refuses anything else", () => {
    const window = (v: unknown) => loadConfig({ env: {}, overrides: { "identity.window": v } }).identity.window;
    expect(window(2)).toBe(2 * 86_400_000);
    expect(window(0.5)).toBe(43_200_000);
    expect(window("4")).toBe(4 * 86_400_000);
    expect(window("3d")).toBe(3 * 86_400_000);
    expect(window("72h")).toBe(72 * 3_600_000);
    expect(window("90m")).toBe(90 * 60_000);
    expect(window("45s")).toBe(45_000);
    expect(window("1500ms")).toBe(1500);
    expect(loadConfig({ env: { MSGX_IDENTITY_WINDOW: " 5 " } }).identity.window).toBe(5 * 86_400_000);
    for (const bad of [0, -1, "0", "0d", "3w", "h", "3 days", "-2h", ""]) {
      expect(() => window(bad), String(bad)).toThrow(/identity\.window/);
    }
  });

  it("refuses bad codec, type policy, budget and identity values with their path (no stack trace)", () => {
    const refused = (env: Record<string, string>, path: RegExp) =>
      expect(() => loadConfig({ env }), JSON.stringify(env)).toThrow(expect.objectContaining({ kind: "CONFIG", message: expect.stringMatching(path) }));
    refused({ MSGX_TYPES_POLICY: "SCHS=maybe" }, /types\.policy[\s\S]*process, ignore or unsupported/);
    refused({ MSGX_TYPES_POLICY: "SCHS" }, /types\.policy: "SCHS" is not TYPE=process\|ignore\|unsupported/);
    refused({ MSGX_TYPES_POLICY: "SCHS=ignore,SCHS=unsupported" }, /types\.policy: SCHS is set twice/);
    refused({ MSGX_TYPES_POLICY: "AB=ignore" }, /types\.policy[\s\S]*TYPE \(3–4 letters\) or FLOP\/<STYP>/);
    refused({ MSGX_TYPES_POLICY: "SCHD/DNLD=ignore" }, /types\.policy[\s\S]*FLOP\/<STYP>/);
    refused({ MSGX_TYPES_UNSUPPORTED_MODE: "drop" }, /types\.unsupported\.mode/);
    refused({ MSGX_TYPES_UNSUPPORTED_ATTEMPTS: "0" }, /types\.unsupported\.attempts/);
    refused({ MSGX_TYPES_UNSUPPORTED_HEAD_MS: "700000" }, /types\.unsupported\.headMs: must not exceed pipeline\.headDeadlineMs \(600000\)/);
    refused({ MSGX_TYPES_UNSUPPORTED_HEAD_MS: "20000", MSGX_PIPELINE_HEAD_DEADLINE_MS: "15000" }, /types\.unsupported\.headMs/);
    refused({ MSGX_IDENTITY_ON_CONTENT_DIFFERS: "keep" }, /identity\.onContentDiffers/);
    refused({ MSGX_CODEC_REFERENCE_TYPES: "AIRL,X1" }, /codec\.referenceTypes/);
    refused({ MSGX_CODEC_LIMITS_MAX_DEPTH: "deep" }, /codec\.limits\.maxDepth/);
    refused({ MSGX_FLIGHT_SCHD_RECS_CHECK: "ignore" }, /flight\.schdRecsCheck/);
  });

  it("takes a routing id as long as the upstream's ROUTINGID VARCHAR(23), and no longer", () => {
    const id = "R".repeat(23);
    expect(loadConfig({ env: { MSGX_REQUESTS_RQFD_ROUTING_ID: id, MSGX_REQUESTS_RQRD_ROUTING_ID: id } }).requests).toMatchObject({ rqfdRoutingId: id, rqrdRoutingId: id });
    expect(() => loadConfig({ env: { MSGX_REQUESTS_RQRD_ROUTING_ID: `${id}R` } })).toThrow(/requests\.rqrdRoutingId/);
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

  it("docs/configuration.md's settings table renders: the separator right under the header, every setting a row of it", () => {
    const lines = configDoc.split("\n");
    const header = lines.indexOf("| path | variable | default | meaning |");
    expect(header).toBeGreaterThanOrEqual(0);
    // Markdown ends a table at a blank line: a blank between header and separator leaves no table.
    expect(lines[header + 1]).toMatch(/^\|(\s*:?-+:?\s*\|)+$/);
    const end = lines.findIndex((l, i) => i > header && !l.startsWith("|"));
    const table = lines.slice(header, end < 0 ? undefined : end).join("\n");
    for (const { env } of settingPaths()) expect(table, env).toContain(`\`${env}\``);
  });
});

describe("compare settings", () => {
  it("takes compare.against as a JSON array or comma-separated, and refuses anything but http(s) URLs", () => {
    expect(loadConfig({ env: {} }).compare).toEqual({ against: [], timeoutMs: 30_000 });
    expect(loadConfig({ env: { MSGX_COMPARE_AGAINST: "http://old-aodb:8080, https://old-aodb-2" } }).compare.against).toEqual(["http://old-aodb:8080", "https://old-aodb-2"]);
    expect(loadConfig({ env: {}, overrides: { "compare.against": ["http://old-aodb:8080"] } }).compare.against).toEqual(["http://old-aodb:8080"]);
    expect(() => loadConfig({ env: { MSGX_COMPARE_AGAINST: "file:///etc/passwd" } })).toThrow(/compare\.against: every entry must be an http\(s\) base URL/);
  });
});
