import { join } from "node:path";
import { hostname } from "node:os";
import { createPgliteStores, createPgStores } from "@msgx/adapters-pg";
import { KafkaDeliveryPort, clusterReplication, ensureTopics, kafkajsLogCreator } from "@msgx/adapters-kafka";
import { QueueTopics } from "@msgx/adapters-kafka/reliable";
import { PgReliableMessageStore } from "@msgx/adapters-pg/reliable";
import { PgTaskStore } from "@msgx/adapters-pg/tasks";
import { mysqlMailboxOptions } from "./mysql-mailbox-options.js";
import { MAILBOX_TABLES_HINT, MysqlMailbox, MysqlOutboundMailbox, ShadowMailbox, ShadowOutboundMailbox, mailboxPoolOptions, missingMailboxTables } from "@msgx/adapters-mysql";
import { errorMessage, MsgxError, RunnerRole, systemClock, type Clock, type DeliveryPort, type Logger, type Mailbox, type OutboundMailbox } from "@msgx/core";
import type { MsgxConfig } from "../config/config-schema.js";
import { DataDirLock } from "../embedded/data-dir-lock.js";
import { JsonlDeliveryPort } from "../embedded/jsonl-delivery-port.js";
import { initPgliteDataDir } from "../embedded/pglite-data-dir.js";
import type { HealthCheck } from "./health-check.js";
import { startPresenceHeartbeat } from "./presence-heartbeat.js";
import type { AppParts, QueueTopicsPort } from "./app-parts.js";

/** Whether any part lives in the data directory: PGlite state, the embedded mailbox or JSONL events. */
export function usesDataDir(config: MsgxConfig): boolean {
  return config.pg.url === undefined || config.mysql.url === undefined || config.kafka.brokers === undefined;
}

export interface BuildOptions {
  /** Admin commands read and replay; they neither lead the pipeline nor create topics. */
  readonly admin?: boolean;
  /** The clock of every store. Default: the system clock. */
  readonly clock?: Clock;
  /** Ends the wait for leadership (a stop while standby): `buildParts` rejects with every part closed. */
  readonly signal?: AbortSignal;
  /** Told which dependency is being opened, and when the parts are open and the wait for leadership begins. */
  readonly progress?: StartProgress;
}

/** The start-up phases `buildParts` goes through, for `/readyz` while it has not finished. */
export interface StartProgress {
  /** `state` (PostgreSQL/PGlite), `mailbox` (MySQL) or `kafka` is being opened. */
  opening(dependency: string): void;
  /** Waiting for the pipeline leadership another runner holds. */
  standby(): void;
}

/**
 * The composition root: picks each adapter from the configuration. State is PGlite in the data
 * directory unless `pg.url` is set; the mailbox is an embedded table unless `mysql.url` is set;
 * events go to JSONL files unless `kafka.brokers` is set. Everything opened is closed by `close`,
 * also when a later part fails to open.
 */
export async function buildParts(config: MsgxConfig, logger: Logger, options: BuildOptions = {}): Promise<AppParts> {
  const clock = options.clock ?? systemClock;
  const startedAt = clock.now();
  const closers: (() => Promise<void> | void)[] = [];
  const close = async () => {
    for (const c of closers.reverse()) {
      try {
        await c();
      } catch (e) {
        logger.warn("close failed", { error: errorMessage(e) });
      }
    }
  };
  try {
    const embeddedState = config.pg.url === undefined;
    const embeddedMailbox = config.mysql.url === undefined;
    if (usesDataDir(config)) {
      const lock = DataDirLock.acquire(config.dataDir);
      closers.push(() => lock.release());
    }
    const checks: HealthCheck[] = [];
    options.progress?.opening("state");

    // State: PostgreSQL or PGlite, with leadership and its fencing epoch.
    const pgliteDir = join(config.dataDir, "pglite");
    if (embeddedState) await initPgliteDataDir(pgliteDir);
    const pg = embeddedState
      ? await createPgliteStores(pgliteDir, { clock })
      : await createPgStores({
          connectionString: config.pg.url,
          schema: config.pg.schema,
          max: config.pg.poolSize,
          // A leader frozen inside a transaction holds the pipeline lock: the server ends its
          // session before the lease lapses, so the standby's takeover never waits on it.
          idleInTransactionTimeoutMs: Math.min(60_000, Math.floor(config.pg.leaseTtlMs / 2)),
          clock,
        });
    closers.push(() => pg.close());
    let fence: number | undefined;
    let leadershipLost: Promise<string> | undefined;
    let leading: (() => boolean) | undefined;
    // Asked by the delivery port after each claim of its transactional id (ProducerFencing).
    let confirmLeadership: (() => Promise<boolean>) | undefined;
    if (!options.admin) {
      if (pg.leadership) {
        const leadership = pg.leadership({ holder: `msgx@${hostname()}:${process.pid}`, ttlMs: config.pg.leaseTtlMs });
        logger.info("waiting for pipeline leadership (a standby waits here while another runner leads)");
        options.progress?.standby();
        closers.push(() => leadership.release());
        // A standby shows itself (GET /admin/runners) while it waits; it is deleted before the lock is released.
        const presence = startPresenceHeartbeat(pg.presence, { role: RunnerRole.STANDBY, logger, startedAt });
        closers.push(() => presence.stop());
        fence = await leadership.acquireWhenFree(options.signal ? { signal: options.signal } : {});
        presence.lead(fence);
        leadershipLost = new Promise((resolve) => leadership.watch((why: string) => resolve(why)));
        leading = () => leadership.mayLead();
        confirmLeadership = () => leadership.confirm();
      } else {
        // One process per PGlite directory (the lock file): it is the leader by construction.
        fence = await pg.bumpEpoch();
        const presence = startPresenceHeartbeat(pg.presence, { role: RunnerRole.LEADER, epoch: fence, logger, startedAt });
        closers.push(() => presence.stop());
      }
    }
    checks.push({ name: "state", check: async () => void (await pg.store.head()) });

    // Mailbox: the upstream's MySQL cminmsgs (names from mysql.inbound/outbound), or an embedded
    // table in the same PGlite/PostgreSQL; upstream requests go to the coutmsgs beside it.
    let mailbox: Mailbox;
    let outbound: OutboundMailbox;
    if (embeddedMailbox) {
      mailbox = await pg.embeddedMailbox({ onlyValidStatus: config.mysql.onlyValidStatus });
      outbound = await pg.embeddedOutbound();
    } else {
      options.progress?.opening("mailbox");
      const mysql = await import("mysql2/promise");
      const pool = mysql.createPool({ uri: config.mysql.url, ...mailboxPoolOptions });
      closers.push(() => pool.end());
      const names = { inbound: config.mysql.inbound, outbound: config.mysql.outbound };
      mailbox = new MysqlMailbox(pool as never, mysqlMailboxOptions(config));
      outbound = new MysqlOutboundMailbox(pool as never, {
        names,
        upstreamTimeZone: config.mysql.upstreamTimeZone,
      });
      // Said once at start, not found out from every scan's error: which table, and how one is made.
      // Not waited for: a mailbox that is down is the retries' business, not the start's.
      if (!options.admin) {
        void missingMailboxTables(pool as never, names)
          .then((missing) => {
            if (missing.length > 0) logger.error(`mailbox tables missing: ${missing.join(", ")}; POST /cminmsgs/send answers 503 and the intake waits until they exist`, { missing, fix: MAILBOX_TABLES_HINT });
          })
          .catch(() => undefined);
      }
    }
    if (config.shadow) {
      mailbox = new ShadowMailbox(mailbox);
      outbound = new ShadowOutboundMailbox(outbound);
    }
    checks.push({ name: "mailbox", check: async () => void (await mailbox.scan(Number.MAX_SAFE_INTEGER - 1, 1)) });

    // Delivery: Kafka, or JSONL files in the data directory.
    let delivery: DeliveryPort;
    let queueTopics: QueueTopicsPort | undefined;
    if (config.kafka.brokers === undefined) {
      const jsonl = new JsonlDeliveryPort(config.dataDir);
      closers.push(() => jsonl.close());
      delivery = jsonl;
    } else {
      options.progress?.opening("kafka");
      const brokers = config.kafka.brokers.split(",").map((b) => b.trim()).filter(Boolean);
      const kafkajs = (await import("kafkajs")).default;
      const kafka = new kafkajs.Kafka({ brokers, clientId: `${config.kafka.clientId}-admin`, logCreator: kafkajsLogCreator(logger), connectionTimeout: 3_000 });
      const admin = kafka.admin();
      // kafkajs retries a connect for ~20 s; a stop meanwhile must not wait for it.
      const abandon = () => void admin.disconnect().catch(() => undefined);
      options.signal?.addEventListener("abort", abandon, { once: true });
      await admin.connect().finally(() => options.signal?.removeEventListener("abort", abandon));
      closers.push(() => admin.disconnect());
      if (!options.admin) {
        // Every topic msgx creates is replicated after the cluster's size (RF 3, min ISR 2 on three brokers).
        const { brokers: registered, ...replication } = await clusterReplication(admin, { replicationFactor: config.kafka.replicationFactor, minInsyncReplicas: config.kafka.minInsyncReplicas });
        logger.info("kafka: topics msgx creates are replicated", { brokers: registered, ...replication });
        const topics = { partitions: config.kafka.partitions, ...replication };
        if (config.kafka.createTopics) {
          await ensureTopics(admin, { msgTopic: config.kafka.msgTopic, schdTopic: config.kafka.schdTopic, refTopic: config.kafka.refTopic, ...topics });
        }
        // Reliable-message queue topics and task topics are created on first use (reliable/tasks.createTopics), not here.
        queueTopics = new QueueTopics(admin, topics);
      }
      // A stale leader's send must never land after a newer leader's: every leader of this exchange
      // claims the same transactional id, and a newer claim fences the older (docs/kafka.md).
      const fencing = confirmLeadership && { transactionalId: `${config.kafka.clientId}:${config.kafka.schdTopic}`, confirm: confirmLeadership };
      const port = new KafkaDeliveryPort({ brokers, clientId: config.kafka.clientId, logger, ...(fencing ? { fencing } : {}) });
      closers.push(() => port.disconnect());
      delivery = port;
      checks.push({ name: "kafka", check: async () => void (await admin.describeCluster()) });
    }

    return {
      kind: embeddedState && embeddedMailbox && config.kafka.brokers === undefined ? "embedded" : "real",
      store: pg.store,
      outbox: pg.outbox,
      flights: pg.flights,
      lineage: pg.lineage,
      status: pg.status,
      throughput: pg.throughput,
      presence: pg.presence,
      requests: pg.requests,
      references: pg.references,
      maintenance: pg.maintenance,
      // The products' stores on the same database, so their outbox rows join the MSG_EVENT the relay reads.
      reliable: new PgReliableMessageStore(pg.db, { clock }),
      tasks: new PgTaskStore(pg.db, { clock }),
      mailbox,
      outbound,
      delivery,
      ...(queueTopics ? { queueTopics } : {}),
      checks,
      ...(fence !== undefined ? { fence } : {}),
      ...(leadershipLost ? { leadershipLost } : {}),
      ...(leading ? { leading } : {}),
      close,
    };
  } catch (e) {
    await close();
    if (e instanceof MsgxError) throw e;
    throw new MsgxError("DEPENDENCY_UNAVAILABLE", `cannot start: ${errorMessage(e)}`, { cause: e });
  }
}
