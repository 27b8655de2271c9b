import { setMaxListeners } from "node:events";
import type { Server } from "node:http";
import {
  BackfillSweeper,
  decodeMessageInSlices,
  errorMessage,
  InboxPoller,
  knownTypes,
  MsgDispatcher,
  Pump,
  ReplayService,
  SchdFlusher,
  systemClock,
  Target,
  type Clock,
  type Logger,
  type ProcStatus,
} from "@msgx/core";
import type { MsgxConfig } from "../config/config-schema.js";
import { createHttpServer } from "../http/http-server.js";
import { startLoop, type Loop } from "../loops/loop.js";
import { createMetrics } from "./metrics.js";
import { messageHandling } from "./message-handling.js";
import { failpointFromEnv } from "./failpoints.js";
import { createMaintenanceJobs, type MaintenanceJobs } from "../jobs/maintenance-schedule.js";
import { createRequestAdmin, requestLoops } from "./request-loops.js";
import { reliableLoops } from "../reliable/reliable-loops.js";
import { directReliableAdmin, reliableService } from "../reliable/reliable-admin.js";
import type { AppParts } from "./app-parts.js";

export interface RunningApp {
  readonly server: Server;
  readonly url: string;
  /** Stops intake, lets every loop finish its current step, closes the server and the parts. */
  stop(): Promise<void>;
  /** Resolves when the app stopped by itself (leadership lost). */
  readonly stopped: Promise<string>;
}

/**
 * Starts the exchange over the given parts: intake, pump, backfill sweep, the three delivery loops
 * (msg, ref, schd) and the HTTP server. Each loop runs a core `step()`; the pump is woken at once by ingress.
 */
export async function startPipeline(parts: AppParts, config: MsgxConfig, logger: Logger, clock: Clock = systemClock): Promise<RunningApp> {
  const controller = new AbortController();
  const signal = controller.signal;
  // Every loop waits on this one signal; a dozen listeners is by design, not a leak.
  setMaxListeners(64, signal);
  const p = config.pipeline;
  // First: a type policy the processors cannot serve refuses to start (CONFIG), before any loop runs.
  const handling = messageHandling(config);
  const { policy } = handling;
  const base = { store: parts.store, mailbox: parts.mailbox, clock, logger };
  const failpoint = failpointFromEnv();
  // The maintenance jobs are built with the loops below; the metrics read the reconciler's counts.
  let maintenance: MaintenanceJobs | undefined;
  const metrics = createMetrics(parts.status, clock, () => maintenance?.reconcilerCounts(), knownTypes(handling.codec.typePolicy, handling.codec.referenceTypes));
  const topics = { [Target.MSG]: config.kafka.msgTopic, [Target.SCHD]: config.kafka.schdTopic, [Target.REF]: config.kafka.refTopic };

  const poller = new InboxPoller(base, { batchSize: p.claimBatch, gapGraceMs: p.gapGraceMs });
  const pump = new Pump(
    {
      ...base,
      // A document of megabytes is parsed in slices with the event loop let in between, so the
      // ingress, /healthz and the relay keep answering while it is read (docs/reliability.md).
      decode: (raw) => decodeMessageInSlices(raw, handling.codec, yieldToEventLoop),
      processors: handling.processors,
      contentHash: handling.contentHash,
      horizon: () => poller.horizon,
      ...(failpoint ? { failpoint } : {}),
    },
    { policy, unsupported: handling.unsupported, identity: handling.identity, maxRun: p.maxRun, ...(parts.fence !== undefined ? { fence: parts.fence } : {}) },
  );
  const sweeper = new BackfillSweeper(base);
  const deliveryDeps = { outbox: parts.outbox, delivery: parts.delivery, clock, logger, ...(failpoint ? { failpoint } : {}) };
  const dispatcher = new MsgDispatcher(deliveryDeps, {
    topics,
    batchSize: config.delivery.batchSize,
    policy: { ...policy, maxAttempts: config.delivery.maxAttempts },
    // The outbox reads and marks run beside the broker's sends (docs/delivery.md).
    pipelined: true,
  });
  // Reference events (`KAFKA:ref`) have their own per-event loop: a reference head in backoff
  // never holds the flight change stream, nor the other way round.
  const refDispatcher = new MsgDispatcher(deliveryDeps, {
    target: Target.REF,
    topics,
    batchSize: config.delivery.batchSize,
    policy: { ...policy, maxAttempts: config.delivery.maxAttempts },
    pipelined: true,
  });
  const flusher = new SchdFlusher(deliveryDeps, { topics, intervalMs: config.schd.flushPeriodMs, flushAt: config.schd.flushLimit, batchLimit: config.schd.flushLimit });

  let resolveStopped!: (why: string) => void;
  const stopped = new Promise<string>((r) => (resolveStopped = r));
  const until = (next: number | null, idle: number) => (next === null ? idle : Math.max(0, next - clock.now()));
  const loops: Loop[] = [];
  const loop = (name: string, step: (s: AbortSignal) => Promise<number>) => {
    const l = startLoop(name, step, { logger, signal });
    loops.push(l);
    return l;
  };

  const delivery = loop("msg-dispatcher", async (s) => until((await dispatcher.step(s)).next, p.pollIntervalMs));
  const refDelivery = loop("ref-dispatcher", async (s) => until((await refDispatcher.step(s)).next, p.pollIntervalMs));
  const schd = loop("schd-flusher", async (s) => until((await flusher.step(s)).next, config.schd.flushPeriodMs));
  const pumpLoop = loop("pump", async (s) => {
    const step = await pump.step(s);
    switch (step.did) {
      case "processed":
        metrics.recordProcessed(step.records.map((r) => ({ status: r.status as ProcStatus, errorClass: r.errorClass, latencyMs: clock.now() - r.receivedAt })));
        metrics.recordWarnings(step.warnings ?? []);
        metrics.recordTypeOutcomes(step.records);
        delivery.wake();
        refDelivery.wake();
        return 0;
      case "fenced":
        logger.error("leadership lost: a newer leader holds the pipeline", { error: step.error });
        resolveStopped("fenced");
        return p.pollIntervalMs;
      case "wait":
      case "outage":
        return Math.max(0, step.until - clock.now());
      default:
        return p.pollIntervalMs;
    }
  });
  const intake = loop("intake", async (s) => {
    const r = await poller.step(s);
    if (r.enqueued.length > 0 || r.horizon > 0) pumpLoop.wake();
    return r.full ? 0 : p.pollIntervalMs;
  });
  loop("backfill-sweep", async (s) => {
    await sweeper.step(s);
    return config.jobs.backfillSweepMs;
  });
  const loopContext = { parts, config, logger, clock, wakePump: () => pumpLoop.wake(), wakeDelivery: () => (delivery.wake(), refDelivery.wake(), schd.wake()) };
  const jobs = createMaintenanceJobs(loopContext);
  maintenance = jobs;
  for (const spec of [...maintenance.loops, ...requestLoops(loopContext), ...reliableLoops(loopContext)]) loop(spec.name, (s) => spec.step(s));
  void parts.leadershipLost?.then((why) => {
    logger.error("leadership lost", { why });
    resolveStopped(`leadership lost: ${why}`);
  });

  const replay = new ReplayService({ store: parts.store, clock });
  const server = createHttpServer({
    logger,
    token: config.http.token,
    maxBodyBytes: config.http.maxBodyBytes,
    checks: parts.checks,
    receive: async (raw) => {
      const id = await parts.mailbox.append(raw);
      intake.wake();
      return id;
    },
    metrics: () => metrics.render(),
    status: () => parts.status.status(),
    message: (id) => parts.store.get(id),
    flight: (flid) => parts.flights.get(flid),
    flights: (q) => parts.flights.list({ ...q, includeDeleted: false }),
    deadLetters: (q) => parts.store.list({ statuses: ["DEAD"], limit: q.limit, ...(q.afterMsgId !== undefined ? { afterMsgId: q.afterMsgId } : {}) }),
    snapshotLog: (limit) => jobs.store.snapshotLog(limit),
    reliable: directReliableAdmin(reliableService(parts.reliable, clock, logger)),
    replayPreview: (sel) => replay.preview(sel),
    replay: async (sel, operator) => {
      const result = await replay.replay(sel, operator);
      logger.info("replay", { operator, replayed: result.replayed, refused: result.refused.map((r) => r.msgId) });
      pumpLoop.wake();
      return result;
    },
    requests: createRequestAdmin(parts, config, clock, logger),
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.http.port, config.http.host, () => resolve());
  });
  const address = server.address();
  const url = typeof address === "object" && address ? `http://${address.address}:${address.port}` : `http://${config.http.host}:${config.http.port}`;
  logger.info("msgx running", { listen: url, profile: config.profile, parts: parts.kind, shadow: config.shadow });

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      logger.info("msgx stopping: finishing current steps");
      await new Promise<void>((r) => server.close(() => r()));
      controller.abort();
      await Promise.all(loops.map((l) => l.done));
      // The pump's last write-back may still be running (the sweep would redo it if cut off).
      await pump.settle().catch((e: unknown) => logger.warn("last backfill not finished; the sweep will redo it", { error: errorMessage(e) }));
      // The relay's last mark may still be on its way; unmarked, its batch would be resent.
      for (const d of [dispatcher, refDispatcher]) {
        await d.settle().catch((e: unknown) => logger.warn("last delivery mark not written; its events will be resent", { error: errorMessage(e) }));
      }
      await parts.close();
      logger.info("msgx stopped");
    })().catch((e: unknown) => {
      logger.error("stop failed", { error: errorMessage(e) });
      throw e;
    }));
  return { server, url, stop, stopped };
}

/** Resolves after the event loop has run pending I/O callbacks and timers. */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
