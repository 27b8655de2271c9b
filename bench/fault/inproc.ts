/**
 * The runner's own exchange (`createExchange` from `@msgx/runner`: the parts, the router's steps —
 * intake, pump, backfill sweep, dispatchers, schd flusher — and the HTTP ingress) in the
 * benchmark's process, on real MariaDB, PostgreSQL and Kafka, each run isolated by schema,
 * mailbox tables and topics. Probes are wrapped around the real adapters (`decorate`), adding no
 * I/O: the instant each ingress append committed (taken by the ingress thread when the runner
 * serves the ingress on one, `http.ingressThread`), each enqueue and commit returned, and each
 * msg-topic record was acknowledged by the broker.
 */
import { createMailboxTables, dropMailboxTables, type MailboxNames } from "@msgx/adapters-mysql";
import { createPgStores } from "@msgx/adapters-pg";
import { Target, type DeliveryPort, type Logger, type Mailbox, type OutboxStore, type PipelineStatus, type PipelineStore, type PipelineTx, type RunDecision } from "@msgx/core";
import { createExchange, loadConfig, startServiceHttp, type AppParts, type Exchange, type ServiceHttp } from "@msgx/runner";
import { deleteTopics, mysqlPool, runMailboxNames, sleep, timedMethods, URLS, wallClockMs, type MysqlPool } from "./infra.js";

/** warn and error lines on stderr; the rest is dropped. */
export const benchLogger: Logger = {
  debug() {},
  info() {},
  warn: (msg, fields) => console.warn(`  [warn] ${msg}${fields ? ` ${JSON.stringify(fields)}` : ""}`),
  error: (msg, fields) => console.error(`  [error] ${msg}${fields ? ` ${JSON.stringify(fields)}` : ""}`),
};

export interface InprocOptions {
  readonly tag: string;
  readonly maxRun: number;
  readonly partitions?: number;
  readonly schdFlushPeriodMs?: number;
  readonly pollIntervalMs?: number;
  readonly claimBatch?: number;
  readonly deliveryBatchSize?: number;
  /** Extra dotted config overrides. */
  readonly overrides?: Readonly<Record<string, unknown>>;
  /** PostgreSQL and MariaDB of the benchmark's own (`URLS` by default). */
  readonly urls?: { readonly pg: string; readonly mysql: string };
}

export interface Inproc {
  readonly url: string;
  readonly app: Exchange;
  readonly parts: AppParts;
  readonly pool: MysqlPool;
  /** The mailbox tables' names (the upstream's layout, this run's table names). */
  readonly names: MailboxNames;
  readonly msgTopic: string;
  readonly schdTopic: string;
  /** Mailbox id → the instant its first msg-topic record was acknowledged. */
  readonly acked: Map<number, number>;
  /** Mailbox id → the instant its ingress append committed (HTTP ingress only; from the ingress thread's report when it serves the ingress). */
  readonly appended: Map<number, number>;
  /** Mailbox id → the instant the intake's enqueue into PostgreSQL returned it. */
  readonly enqueued: Map<number, number>;
  /** Mailbox id → the instant the pump's transaction that decided it committed. */
  readonly committed: Map<number, number>;
  /** Milliseconds spent in each phase of the pump's steps, one entry per call (see `stageProbe`). */
  readonly phases: Map<string, number[]>;
  /** The ingress thread's event-loop use since it started (idle and active ms), when the runner serves the ingress on one. */
  ingressLoop(): { readonly idle: number; readonly active: number } | undefined;
  /** msg-topic records acknowledged (resends included). */
  ackedRecords(): number;
  status(): Promise<PipelineStatus>;
  /** Stops the pipeline, drops the schema, tables and topics. */
  dispose(): Promise<void>;
}

export async function startInproc(o: InprocOptions): Promise<Inproc> {
  const schema = o.tag.toLowerCase();
  const names = runMailboxNames(o.tag);
  const msgTopic = `msg_${o.tag}`;
  const schdTopic = `schd_${o.tag}`;
  const urls = o.urls ?? URLS;
  const pool = mysqlPool(4, urls.mysql);
  await createMailboxTables(pool as never, names);
  const config = loadConfig({
    env: {},
    overrides: {
      dataDir: `/tmp/msgx-bench-${o.tag}`,
      "http.port": 0,
      "pg.url": urls.pg,
      "pg.schema": schema,
      "mysql.url": urls.mysql,
      "mysql.inbound.table": names.inbound.table,
      "mysql.outbound.table": names.outbound.table,
      "kafka.brokers": URLS.brokers,
      "kafka.msgTopic": msgTopic,
      "kafka.schdTopic": schdTopic,
      "kafka.partitions": o.partitions ?? 6,
      "pipeline.maxRun": o.maxRun,
      ...(o.pollIntervalMs !== undefined ? { "pipeline.pollIntervalMs": o.pollIntervalMs } : {}),
      ...(o.claimBatch !== undefined ? { "pipeline.claimBatch": o.claimBatch } : {}),
      ...(o.deliveryBatchSize !== undefined ? { "delivery.batchSize": o.deliveryBatchSize } : {}),
      ...(o.schdFlushPeriodMs !== undefined ? { "schd.flushPeriodMs": o.schdFlushPeriodMs } : {}),
      "log.level": "warn",
      ...o.overrides,
    },
  });
  const cleanUp = async () => {
    const pg = await createPgStores({ connectionString: urls.pg, migrate: false, max: 1 });
    await pg.db.schema.dropSchema(schema).ifExists().cascade().execute().catch(() => undefined);
    await pg.close();
    await dropMailboxTables(pool as never, names).catch(() => undefined);
    await pool.end().catch(() => undefined);
    await deleteTopics([msgTopic, schdTopic]);
  };
  const acked = new Map<number, number>();
  const appended = new Map<number, number>();
  const phases = new Map<string, number[]>();
  let ackedRecords = 0;
  const enqueued = new Map<number, number>();
  const committed = new Map<number, number>();
  const probe = (parts: AppParts): AppParts => {
    const delivery: DeliveryPort = {
      send: async (records, signal) => {
        const placements = await timed(phases, "relay: send (one Kafka transaction)", () => parts.delivery.send(records, signal));
        const at = wallClockMs();
        for (const r of records) {
          if (r.topic !== msgTopic) continue;
          ackedRecords += 1;
          const id = Number(r.headers["msgx-source-msg-id"]);
          if (!acked.has(id)) acked.set(id, at);
        }
        return placements;
      },
    };
    const inner = parts.mailbox;
    const mailbox: Mailbox = {
      // A scan that found rows: how long after the newest row's append it started, and its round trip.
      scan: async (afterId, limit, signal) => {
        const started = wallClockMs();
        const t0 = performance.now();
        const rows = await inner.scan(afterId, limit, signal);
        const last = rows.at(-1);
        const at = last === undefined ? undefined : appended.get(last.msgId);
        if (at !== undefined) {
          record(phases, "intake: append → scan starts", Math.max(0, started - at));
          record(phases, "intake: scan (MariaDB)", performance.now() - t0);
        }
        return rows;
      },
      readRaw: (ids, signal) => timed(phases, "raw text (memory or MariaDB)", () => inner.readRaw(ids, signal)),
      backfill: (entries, signal) => inner.backfill(entries, signal),
      append: async (raw, signal) => {
        const id = await inner.append(raw, signal);
        appended.set(id, wallClockMs());
        return id;
      },
      // The runner's ingress thread appends on its own connections and reports each committed
      // row with the instant its INSERT returned, taken in that thread.
      appendedElsewhere: (appends) => {
        for (const a of appends) appended.set(a.msgId, a.committedAt);
        inner.appendedElsewhere?.(appends);
      },
    };
    const store = stageProbe(parts.store, enqueued, committed, phases);
    return { ...parts, store, delivery, mailbox, outbox: relayProbe(parts.outbox, phases) };
  };
  let app: Exchange;
  let url: string;
  let http: ServiceHttp;
  try {
    // The runner's own server (as `msgx run` starts it), kept here to read its ingress thread's load.
    http = await startServiceHttp(config, benchLogger);
  } catch (e) {
    await cleanUp();
    throw e;
  }
  try {
    app = await createExchange(config, { logger: benchLogger, decorate: probe, http });
  } catch (e) {
    await http.close();
    await cleanUp();
    throw e;
  }
  try {
    // A failed start closes the parts itself.
    url = await app.start();
  } catch (e) {
    await http.close();
    await cleanUp();
    throw e;
  }

  let disposed = false;
  return {
    url,
    app,
    parts: app.parts,
    pool,
    names,
    msgTopic,
    schdTopic,
    acked,
    appended,
    enqueued,
    committed,
    phases,
    ackedRecords: () => ackedRecords,
    ingressLoop: () => http.ingressThread?.eventLoopUtilization(),
    status: () => app.parts.status.status(),
    dispose: async () => {
      if (disposed) return;
      disposed = true;
      await app.stop().catch((e: unknown) => console.error("  stop failed", e));
      await cleanUp();
    },
  };
}

/** Adds one duration in milliseconds to `phases` under `name`. */
function record(phases: Map<string, number[]>, name: string, ms: number): void {
  const list = phases.get(name);
  if (list) list.push(ms);
  else phases.set(name, [ms]);
}

/** Runs `work` and records its duration under `name`. */
async function timed<T>(phases: Map<string, number[]>, name: string, work: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  try {
    return await work();
  } finally {
    record(phases, name, performance.now() - t0);
  }
}

/** Times the relay's reads and marks of the outbox (every dispatcher's: msg, schd, ref). */
function relayProbe(outbox: OutboxStore, phases: Map<string, number[]>): OutboxStore {
  const phaseOf: Record<string, string> = {
    pending: "relay: read (pending)",
    markSentAndRead: "relay: mark and read the next (markSentAndRead)",
    markSent: "relay: mark (markSent)",
  };
  return timedMethods(outbox, Object.keys(phaseOf), (name, ms) => record(phases, phaseOf[name]!, ms));
}

/**
 * Wraps the store: when `enqueue` returned each id, when the `commitRun` or transaction deciding it
 * committed, and the time of each phase of a pump step (the run query, a `loadRunState`, the
 * `commitRun`; on the slow path BEGIN + lock, the loads, `applyRun`, COMMIT; the raw text is timed
 * on the mailbox). Only transactions that apply a run count.
 */
function stageProbe(store: PipelineStore, enqueued: Map<number, number>, committed: Map<number, number>, phases: Map<string, number[]>): PipelineStore {
  // Members are read on the target itself (its getters use private fields a proxy does not have).
  const bound = (target: object, prop: string | symbol) => {
    const v = Reflect.get(target, prop) as unknown;
    return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
  };
  return new Proxy(store, {
    get(target, prop) {
      if (prop === "enqueue") {
        return async (...args: Parameters<PipelineStore["enqueue"]>) => {
          const t0 = performance.now();
          const ids = await target.enqueue(...args);
          if (ids.length > 0) record(phases, "intake: enqueue (PostgreSQL)", performance.now() - t0);
          const at = wallClockMs();
          for (const id of ids) if (!enqueued.has(id)) enqueued.set(id, at);
          return ids;
        };
      }
      if (prop === "unfinished") {
        return async (...args: Parameters<PipelineStore["unfinished"]>) => {
          const t0 = performance.now();
          const found = await target.unfinished(...args);
          // An idle step's empty answer is not a phase of a run.
          if (found.length > 0) record(phases, "run query", performance.now() - t0);
          return found;
        };
      }
      if (prop === "loadRunState") {
        return (...args: Parameters<PipelineStore["loadRunState"]>) => timed(phases, "loadRunState (memory missed)", () => target.loadRunState(...args));
      }
      if (prop === "commitRun") {
        // The leader's fast path: the run decided from memory, written and committed in one round trip.
        return async (...args: Parameters<PipelineStore["commitRun"]>) => {
          const t0 = performance.now();
          const eventIds = await target.commitRun(...args);
          record(phases, "commitRun (one round trip)", performance.now() - t0);
          const at = wallClockMs();
          for (const r of args[0].records) if (!committed.has(r.msgId)) committed.set(r.msgId, at);
          return eventIds;
        };
      }
      if (prop === "transaction") {
        return async <T>(work: (tx: PipelineTx) => Promise<T>, options?: { fence?: number }) => {
          const decided: number[] = [];
          const local = new Map<string, number[]>();
          const called = performance.now();
          let applied = Number.NaN;
          const out = await target.transaction(
            (tx) => {
              record(local, "BEGIN + lock + epoch", performance.now() - called);
              return work(
                new Proxy(tx, {
                  get(t, p) {
                    if (p === "applyRun") {
                      return (d: RunDecision) => {
                        decided.push(...d.records.map((x) => x.msgId));
                        return timed(local, "applyRun", () => t.applyRun(d)).finally(() => (applied = performance.now()));
                      };
                    }
                    if (p === "identityOwners" || p === "loadFlights") {
                      return (...a: unknown[]) => timed(local, `load ${String(p)}`, () => (t[p] as (...x: unknown[]) => Promise<unknown>)(...a));
                    }
                    return bound(t, p);
                  },
                }),
              );
            },
            options,
          );
          const at = wallClockMs();
          for (const id of decided) if (!committed.has(id)) committed.set(id, at);
          if (decided.length > 0) {
            record(local, "COMMIT", performance.now() - applied);
            record(local, "transaction in all", performance.now() - called);
            for (const [name, list] of local) for (const ms of list) record(phases, name, ms);
          }
          return out;
        };
      }
      return bound(target, prop);
    },
  });
}

/** Waits until every one of `total` messages is terminal and no msg event is pending. */
export async function drained(p: Inproc, total: number, timeoutMs: number, everyMs = 250): Promise<PipelineStatus> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const s = await p.status();
    const terminal = (s.byStatus.SUCCEEDED ?? 0) + (s.byStatus.SKIPPED ?? 0) + (s.byStatus.DEAD ?? 0);
    if (terminal >= total && (s.delivery[Target.MSG]?.pending ?? 0) === 0) return s;
    if (Date.now() > deadline) throw new Error(`not drained after ${timeoutMs} ms: ${JSON.stringify(s)}`);
    await sleep(everyMs);
  }
}
