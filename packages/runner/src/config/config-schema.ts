import { zoneOffsetMinutes } from "@msgx/adapters-mysql";
import { DEFAULT_IDENTITY_WINDOW_MS } from "@msgx/core";
import { z } from "zod";
import { checkMailboxNames, mailboxNamesShape } from "./mailbox-names-schema.js";
import { codecSection, flightSection, typesSection } from "./codec-schema.js";
import { brokersProblem, MYSQL_URL, PG_URL, urlProblem, type UrlRule } from "./connection-urls.js";
import { reliableSection } from "./reliable-schema.js";
import { tasksSection } from "./tasks-schema.js";

/** The adapter's own parse decides, so the config accepts exactly the offsets the mailbox takes. */
const isZoneOffset = (offset: string): boolean => {
  try {
    zoneOffsetMinutes(offset);
    return true;
  } catch {
    return false;
  }
};

/** An optional connection URL, refused at start (CONFIG) with the rule it breaks, never echoing the value. */
const connectionUrl = (rule: UrlRule) =>
  z
    .string()
    .optional()
    .superRefine((v, ctx) => {
      const problem = v === undefined ? undefined : urlProblem(v, rule);
      if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
    });

const ms = (d: number) => z.coerce.number().int().min(0).default(d);
const positive = (d: number) => z.coerce.number().int().min(1).default(d);
const DAY_MS = 24 * 60 * 60 * 1000;
const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: DAY_MS };
/**
 * A duration of days, as the other `…Days` settings count, parsed to milliseconds: a number of
 * days (`3`, `0.5`), or a string with a unit `ms`, `s`, `m`, `h` or `d` (`"72h"`, `"3d"`); a
 * string without one is days, as an environment variable gives a number.
 */
const days = (defaultMs: number) =>
  z
    .union([z.number().positive(), z.string().trim().regex(/^(?=.*[1-9])\d+(\.\d+)?(ms|s|m|h|d)?$/, "a positive number of days, or a number with a unit ms, s, m, h or d (\"72h\")")])
    .default(defaultMs / DAY_MS)
    .transform((v) => {
      if (typeof v === "number") return Math.max(1, Math.round(v * DAY_MS));
      const [, amount = "", unit = ""] = /^([\d.]+)([a-z]*)$/.exec(v) ?? [];
      return Math.max(1, Math.round(Number(amount) * UNIT_MS[unit === "" ? "d" : unit]!));
    });
const bool = (d: boolean) =>
  z
    .union([z.boolean(), z.enum(["true", "false", "1", "0"])])
    .default(d)
    .transform((v) => v === true || v === "true" || v === "1");

/**
 * Every setting of the runner. Each leaf can come from the config file (JSON) or from an
 * environment variable named `MSGX_` + its path in SCREAMING_SNAKE case
 * (`pipeline.pollIntervalMs` → `MSGX_PIPELINE_POLL_INTERVAL_MS`). Unknown keys are refused, so a
 * misspelt setting — or an attempt to loosen the producer's safety settings — fails at start.
 */
export const ConfigSchema = z
  .object({
    /** `embedded`: PGlite + JSONL files, no servers. `production`: real PostgreSQL, MySQL, Kafka only. */
    profile: z.enum(["embedded", "production"]).default("embedded"),
    /** Embedded state, mailbox and event files; one runner per directory (lock file). */
    dataDir: z.string().min(1).default(".msgx"),
    http: z
      .object({
        host: z.string().default("127.0.0.1"),
        port: z.coerce.number().int().min(0).max(65_535).default(8080),
        /** Bearer token for `POST /cminmsgs/send` and `/admin/*`; unset = open (loopback listeners only, unless `allowAnonymous`). */
        token: z.string().min(16, "http.token must be at least 16 characters").optional(),
        /** No token on a non-loopback listener: refused unless this is true. */
        allowAnonymous: bool(false),
        maxBodyBytes: positive(4 * 1024 * 1024),
        /** A client that has not sent its whole request head by then is disconnected. */
        headersTimeoutMs: positive(10_000),
        /** A client that has not sent its whole request (head and body) by then is disconnected. */
        requestTimeoutMs: positive(60_000),
        /**
         * `on`: with the MySQL mailbox (`mysql.url`), the ingress `POST /cminmsgs/send` is served on
         * its own worker thread with its own connections, and every other request is handed to the
         * main thread (docs/operations.md "The ingress thread"). `auto`: so when the machine has at
         * least 4 CPUs (on 2 the thread competes with the pipeline for them). `off`: one server on
         * the main thread.
         */
        ingressThread: z.enum(["auto", "on", "off"]).default("auto"),
      })
      .strict()
      .prefault({}),
    pg: z
      .object({
        /** `postgres://user@host:port/db`, or libpq's host list `postgres://user@h1:port,h2:port/db?target_session_attrs=read-write`; set = state on real PostgreSQL. */
        url: connectionUrl(PG_URL),
        /** Schema holding msgx's tables (created by the migrations). */
        schema: z.string().regex(/^[a-z_][a-z0-9_]*$/, "pg.schema must be a lower-case identifier").default("public"),
        poolSize: positive(10),
        /** Run the statements msgx repeats as prepared statements, planned once per connection; false behind PgBouncer in transaction mode before 1.21. */
        preparedStatements: bool(true),
        /**
         * The pipeline leadership lease (docs/reliability.md "Leadership lease"): the leader renews it every
         * third of this; a standby takes over within about this long after the leader froze, was
         * cut off or died; server sessions idle inside a transaction are ended after half of it.
         */
        leaseTtlMs: z.coerce.number().int().min(300).default(10_000),
      })
      .strict()
      .prefault({}),
    mysql: z
      .object({
        /** `mysql://root@127.0.0.1:3306/test`; set = the real shared mailbox. */
        url: connectionUrl(MYSQL_URL),
        /** The upstream's table and column names (`inbound.table`, `inbound.columns.clobMsg`, …); default its DDL. */
        ...mailboxNamesShape,
        /** Only rows with `STATUS = 'VALID'` are processed. */
        onlyValidStatus: bool(false),
        /** The fixed offset (`±HH:MM`) in which the upstream writes its own DATETIMEs (`DATE_RECEIVED`, `DATE_SENT`). */
        upstreamTimeZone: z
          .string()
          .refine(isZoneOffset, "mysql.upstreamTimeZone must be a fixed offset like +08:00 or -05:00")
          .default("+00:00"),
        /** Ingress appends that arrive together go in one multi-row INSERT, where the server numbers its rows consecutively. */
        groupAppends: bool(true),
        /** The pump takes the text of a message this process appended from memory instead of reading it back. */
        appendedTextsFromMemory: bool(true),
        /** The intake takes rows this process appended from memory when they are the next ids, instead of scanning the table for them. */
        appendedRowsFromMemory: bool(true),
        /** Backfill writes the META into the `SUBSYSTEM_*` columns besides `DATE_PROCESSED` (ours); false: `DATE_PROCESSED` only. */
        backfillSubsystem: bool(true),
      })
      .strict()
      .superRefine(checkMailboxNames)
      .prefault({}),
    kafka: z
      .object({
        /** Comma-separated `host:port` list; set = deliver to Kafka. */
        brokers: z
          .string()
          .optional()
          .superRefine((v, ctx) => {
            const problem = v === undefined ? undefined : brokersProblem(v);
            if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
          }),
        clientId: z.string().default("msgx"),
        msgTopic: z.string().default("msg"),
        schdTopic: z.string().default("schd"),
        /** Compacted topic of reference data, key `<TYPE>:<KEY>` (KAFKA:ref). */
        refTopic: z.string().default("ref"),
        /** Create missing topics at start (schd compacted). */
        createTopics: bool(true),
        partitions: positive(6),
        /** Replication factor of topics msgx creates; unset: min(3, brokers the cluster registers at start). */
        replicationFactor: z.coerce.number().int().min(1).optional(),
        /** `min.insync.replicas` of topics msgx creates; unset: 2 when the replication factor is 3 or more, else 1. */
        minInsyncReplicas: z.coerce.number().int().min(1).optional(),
        /**
         * The largest record the brokers take (`message.max.bytes`, a topic's `max.message.bytes`):
         * a message whose event would be larger is refused DEAD(PROTOCOL) before anything of it is
         * written. Checked in every profile, so the embedded one refuses what Kafka would; 0 = unchecked.
         */
        maxRecordBytes: ms(1_000_000),
      })
      .strict()
      .prefault({}),
    pipeline: z
      .object({
        pollIntervalMs: positive(1_000),
        claimBatch: positive(50),
        maxAttempts: positive(5),
        backoffInitialMs: positive(1_000),
        backoffMultiplier: z.coerce.number().min(1).default(2),
        backoffMaxMs: positive(60_000),
        headDeadlineMs: positive(600_000),
        /** Messages per transaction (group commit); 1 = one message per transaction. */
        maxRun: positive(200),
        gapGraceMs: ms(10_000),
        /** Operation days before the airport's local today whose flights the leader holds in memory (and every later day). */
        memoryOpenDays: z.coerce.number().int().min(0).max(366).default(1),
        /** The most flights the leader holds in memory, of the open days (least recently used evicted first). */
        memoryFlights: positive(20_000),
        /** The most identity owners the leader holds in memory, only those inside `identity.window`. */
        memoryIdentities: positive(100_000),
        /** Pipelined steps: the run behind a committing one is read and decided meanwhile (off: one run at a time). */
        pipelinedSteps: bool(true),
        /**
         * The longest a committed message waits for its mailbox write-back (`DATE_PROCESSED`) to be
         * batched with later ones (SPEC §2.5: batches, not one write per message); 0 = after every run.
         */
        backfillDelayMs: ms(500),
        /** A write-back batch this large goes out at once. */
        backfillBatch: positive(500),
      })
      .strict()
      .prefault({}),
    schd: z
      .object({ flushPeriodMs: positive(3_000), flushLimit: positive(500) })
      .strict()
      .prefault({}),
    delivery: z
      .object({
        batchSize: positive(100),
        maxAttempts: positive(5),
        /** How long the marks of batches sent from the hand-over are gathered into one statement (0: each on its own). */
        markDelayMs: ms(50),
      })
      .strict()
      .prefault({}),
    identity: z
      .object({
        /** Fixed once in production: changing it changes what counts as a duplicate. */
        includeDayBoundary: bool(false),
        /** Fixed once in production: META DTTM and the raw text's SHA-256 join the identity. */
        includeContent: bool(false),
        /** A taken identity whose earlier body differs: `skip` (SKIPPED, warned) or `dead` (DEAD for review, warned). */
        onContentDiffers: z.enum(["skip", "dead"]).default("skip"),
        /** The dedupe window, in ms once parsed: a differing body whose identity was bound longer ago is a new message. */
        window: days(DEFAULT_IDENTITY_WINDOW_MS),
      })
      .strict()
      .prefault({}),
    /** The decoder's caps and options (WIRE.md, docs/configuration.md "Codec and type policy"). */
    codec: codecSection,
    /** What is processed, ignored or unsupported per TYPE / FLOP subtype, and the unsupported budget. */
    types: typesSection,
    /** Switches of the flight processors. */
    flight: flightSection,
    /** Read and process, never write the shared mailbox. */
    shadow: bool(false),
    history: z
      .object({
        retentionDays: positive(7),
        /** Airport local time of the daily history sweep. */
        sweepAt: z.string().regex(/^\d{2}:\d{2}$/).default("03:30"),
        snapLogRetentionDays: positive(90),
      })
      .strict()
      .prefault({}),
    airport: z
      .object({
        /** Airport local time = UTC + this (China: +480, no DST). */
        utcOffsetMinutes: z.coerce.number().int().min(-720).max(840).default(480),
        /** Operation day starts this many minutes after local midnight. */
        dayStartOffsetMinutes: ms(0),
      })
      .strict()
      .prefault({}),
    /** Upstream requests (RQFD, RQRD) written to COUTMSGS, and their replies (docs/requests.md). */
    requests: z
      .object({
        /** Our SNDR in the META of every request: 1–4 of [A-Z0-9]. */
        sndr: z.string().regex(/^[A-Z0-9]{1,4}$/, "requests.sndr must be 1–4 of [A-Z0-9]").default("MSGX"),
        /** Our SEQN counter runs from seqnFirst to seqnLast, then 0, then seqnFirst again (written six digits, zero-padded). */
        seqnFirst: z.coerce.number().int().min(0).default(1),
        seqnLast: positive(999_999),
        /** An open request expires this long after registration, or after it was sent. */
        timeoutMs: positive(900_000),
        /** A send attempt holds its request this long (must exceed the mailbox's worst insert time). */
        sendLeaseMs: positive(120_000),
        /** Wait after a failed send attempt; the next one looks the row up before inserting. */
        retryMs: positive(5_000),
        /** How often the coordinator passes over open requests (sends, pick-ups, timeouts). */
        pollMs: positive(1_000),
        /** COUTMSGS.ROUTINGID of schedule requests. */
        rqfdRoutingId: z.string().min(1).max(23).default("VIEWRQFD"),
        /** COUTMSGS.ROUTINGID of reference-data requests. */
        rqrdRoutingId: z.string().min(1).max(23).default("VIEWRQRD"),
        /** How an RQFD writes STDB/STDE: body (ddMMMyyHHmm, the upstream's body time) or dttm (yyyyMMddHHmmss). */
        rangeTimeFormat: z.enum(["body", "dttm"]).default("body"),
        /** The root's xsi:noNamespaceSchemaLocation in our requests (the upstream's schema file). */
        schemaLocation: z.string().regex(/^[A-Za-z0-9._-]{1,100}$/, "requests.schemaLocation must be 1–100 of [A-Za-z0-9._-]").default("unisysaodbsis.xsd"),
      })
      .strict()
      .refine((r) => r.seqnLast >= r.seqnFirst, { message: "requests.seqnLast must not be below requests.seqnFirst" })
      .prefault({}),
    /** The reliable-message service the runner hosts: `/rm/v1`, check-back, recovery, retention. */
    reliable: reliableSection,
    /** The task service the runner hosts when enabled: `/task/v1`, task relay, dispatch, watchdog, retention. */
    tasks: tasksSection,
    jobs: z
      .object({ backfillSweepMs: positive(30_000) })
      .strict()
      .prefault({}),
    log: z
      .object({ level: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info") })
      .strict()
      .prefault({}),
    tracing: z
      .object({
        enabled: bool(false),
        endpoint: z
          .string()
          .optional()
          .superRefine((v, ctx) => {
            if (v !== undefined && !/^https?:\/\/[^/\s]+/.test(v)) ctx.addIssue({ code: "custom", message: "tracing.endpoint must be an http(s) URL (the OTLP/HTTP traces endpoint)" });
          }),
        serviceName: z.string().min(1).default("msgx"),
      })
      .strict()
      .prefault({}),
    /** The console's comparison with the system msgx replaces (`POST /admin/compare`, docs/operations.md "Going live"). */
    compare: z
      .object({
        /**
         * The base URLs the runner may read `/all/flights` from when asked (a JSON array, or
         * comma-separated); the first is the console's default. Empty: no comparison from the console.
         */
        against: z
          .union([z.array(z.string()), z.string()])
          .default([])
          .transform((v) => (typeof v === "string" ? v.split(",").map((s) => s.trim()).filter((s) => s !== "") : v))
          .pipe(z.array(z.string().regex(/^https?:\/\/[^/\s]+/, "compare.against: every entry must be an http(s) base URL"))),
        /** A page of the other system that has not come by then fails the comparison. */
        timeoutMs: positive(30_000),
      })
      .strict()
      .prefault({}),
  })
  .strict()
  .superRefine((c, ctx) => {
    if (c.tasks.callback.resultTopic !== undefined && c.kafka.brokers === undefined) {
      ctx.addIssue({ code: "custom", path: ["tasks", "callback", "resultTopic"], message: "a callback result topic needs Kafka: set kafka.brokers (or leave the result topic unset: callbacks over HTTP)" });
    }
    if (c.types.unsupported.headMs > c.pipeline.headDeadlineMs) {
      ctx.addIssue({ code: "custom", path: ["types", "unsupported", "headMs"], message: `must not exceed pipeline.headDeadlineMs (${c.pipeline.headDeadlineMs})` });
    }
  });

export type MsgxConfig = z.output<typeof ConfigSchema>;
export type MsgxConfigInput = z.input<typeof ConfigSchema>;
