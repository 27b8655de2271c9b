import type { PgStores } from "@msgx/adapters-pg";
import { PgReliableMessageStore } from "@msgx/adapters-pg/reliable";
import { PgTaskStore } from "@msgx/adapters-pg/tasks";
import { errorMessage, MsgxError, systemClock, type Clock, type Logger } from "@msgx/core";
import type { MsgxConfig } from "../config/config-schema.js";
import { DataDirLock } from "../embedded/data-dir-lock.js";
import type { AppParts } from "./app-parts.js";
import type { HealthCheck } from "./health-check.js";
import { leadPipeline, type Leadership } from "./lead-pipeline.js";
import { openDelivery, type DeliveryParts } from "./open-delivery.js";
import { openMailbox, type MailboxParts } from "./open-mailbox.js";
import { openState } from "./open-state.js";
import { PartClosers } from "./part-closers.js";

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
  const admin = options.admin === true;
  const progress = options.progress;
  const closers = new PartClosers(logger);
  try {
    if (usesDataDir(config)) lockDataDir(config.dataDir, closers);
    progress?.opening("state");
    const pg = await openState(config, clock, closers);
    const leadership: Leadership = admin ? {} : await leadPipeline(pg, { logger, leaseTtlMs: config.pg.leaseTtlMs, startedAt, closers, signal: options.signal, standby: () => progress?.standby() });
    const mailbox = await openMailbox(config, pg, logger, closers, { admin, opening: () => progress?.opening("mailbox") });
    const delivery = await openDelivery(config, logger, closers, { admin, signal: options.signal, confirmLeadership: leadership.confirm, opening: () => progress?.opening("kafka") });
    return assembleParts(config, clock, { pg, leadership, mailbox, delivery }, () => closers.closeAll());
  } catch (e) {
    await closers.closeAll();
    if (e instanceof MsgxError) throw e;
    throw new MsgxError("DEPENDENCY_UNAVAILABLE", `cannot start: ${errorMessage(e)}`, { cause: e });
  }
}

/** One process per data directory (PGlite state, the embedded mailbox, JSONL events): the lock file says which. */
function lockDataDir(dataDir: string, closers: PartClosers): void {
  const lock = DataDirLock.acquire(dataDir);
  closers.add(() => lock.release());
}

/** The opened parts as the runner reads them, with the products' stores on the same database and the health checks. */
function assembleParts(
  config: MsgxConfig,
  clock: Clock,
  opened: { readonly pg: PgStores; readonly leadership: Leadership; readonly mailbox: MailboxParts; readonly delivery: DeliveryParts },
  close: () => Promise<void>,
): AppParts {
  const { pg, leadership, mailbox, delivery } = opened;
  const checks: HealthCheck[] = [
    { name: "state", check: async () => void (await pg.store.head()) },
    { name: "mailbox", check: async () => void (await mailbox.mailbox.scan(Number.MAX_SAFE_INTEGER - 1, 1)) },
    ...delivery.checks,
  ];
  return {
    kind: config.pg.url === undefined && config.mysql.url === undefined && config.kafka.brokers === undefined ? "embedded" : "real",
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
    mailbox: mailbox.mailbox,
    outbound: mailbox.outbound,
    delivery: delivery.delivery,
    ...(delivery.queueTopics ? { queueTopics: delivery.queueTopics } : {}),
    checks,
    ...(leadership.fence !== undefined ? { fence: leadership.fence } : {}),
    ...(leadership.leadershipLost ? { leadershipLost: leadership.leadershipLost } : {}),
    ...(leadership.leading ? { leading: leadership.leading } : {}),
    close,
  };
}
