import { setMaxListeners } from "node:events";
import { errorMessage, systemClock, type Clock, type Logger } from "@msgx/core";
import type { MsgxConfig } from "../config/config-schema.js";
import type { HttpContext } from "../http/http-context.js";
import { driveRouter } from "../loops/router-loops.js";
import { RELIABLE_RELAY_STEP } from "../reliable/reliable-steps.js";
import { TASK_RELAY_STEP } from "../tasks/task-steps.js";
import type { AppParts } from "./app-parts.js";
import { jsonlLineage } from "../embedded/jsonl-lineage.js";
import { createExchangeRouter, targetTopics, type ExchangeRouter } from "./exchange-router.js";
import { createReplayAdmin } from "./replay-admin.js";
import { routerIngress } from "./router-ingress.js";
import { createOpsReads } from "./ops-reads.js";
import { createCompareAdmin } from "../compare/compare-admin.js";
import { createRequestAdmin } from "./request-steps.js";
import { startServiceHttp, type ServiceHttp } from "./service-http.js";

/**
 * How long a stop waits for its last schd flush: well inside `msgx run`'s stop deadline, so a broker
 * that stopped answering leaves those events pending (for the next leader) rather than overrunning it.
 */
const LAST_FLUSH_MS = 10_000;

export interface RunningApp {
  readonly url: string;
  /** Stops intake, lets every loop finish its current step, closes the server and the parts. */
  stop(): Promise<void>;
  /** Resolves when the app stopped by itself (leadership lost). */
  readonly stopped: Promise<string>;
  /** Ends the waits of the named steps (what the router answers to an event from outside its steps). */
  wake(names: readonly string[]): void;
}

/**
 * Runs the exchange over the given parts: one timer loop per router step (docs/exchange.md) and
 * the HTTP server. The router (built from the configuration unless given) is everything else.
 * Given `service` (the server `msgx run` started before opening anything), the pipeline's routes
 * attach to it; else a server is started here.
 */
export async function startPipeline(
  parts: AppParts,
  config: MsgxConfig,
  logger: Logger,
  clock: Clock = systemClock,
  composed: ExchangeRouter = createExchangeRouter(parts, config, logger, clock),
  service?: ServiceHttp,
): Promise<RunningApp> {
  const { router, metrics, maintenance, reliable, tasks } = composed;
  const controller = new AbortController();
  // Every loop waits on this one signal; a dozen listeners is by design, not a leak.
  setMaxListeners(64, controller.signal);
  const loops = driveRouter(router, { logger, signal: controller.signal, ...(parts.leading ? { mayStart: parts.leading } : {}) });

  const replay = createReplayAdmin(parts, config, clock);
  const liveFlights = (q: { operationDay?: string; afterFlid?: string; limit: number }) => parts.flights.list({ ...q, includeDeleted: false });
  const ctx: HttpContext = {
    logger,
    token: config.http.token,
    maxBodyBytes: config.http.maxBodyBytes,
    checks: parts.checks,
    ...routerIngress(router, loops.wake),
    metrics: () => metrics.render(),
    status: () => parts.status.status(),
    message: (id) => parts.store.get(id),
    flight: (flid) => parts.flights.get(flid),
    flights: liveFlights,
    deadLetters: (q) => replay.deadLetters(q),
    deadLetterGroups: (idsPerGroup) => replay.deadLetterGroups(idsPerGroup),
    snapshotLog: (limit) => maintenance.store.snapshotLog(limit),
    // Embedded (no brokers: JSONL files, as build-parts decides), lineage names each record's file and line.
    lineage: config.kafka.brokers === undefined ? jsonlLineage(parts.lineage, targetTopics(config)) : parts.lineage,
    reliable: reliable.admin,
    ...(config.reliable.enabled ? { rm: reliable.api(() => loops.wake([RELIABLE_RELAY_STEP])) } : {}),
    ...(tasks ? { tasks: tasks.api(() => loops.wake([TASK_RELAY_STEP])) } : {}),
    replayPreview: (sel) => replay.preflight(sel),
    replay: async (sel, operator, options) => {
      const result = await replay.replay(sel, operator, options);
      logger.info("replay", { operator, replayed: result.replayed, refused: result.refused.map((r) => r.msgId) });
      loops.wake(router.wakes("replay"));
      return result;
    },
    rawMessage: (msgId) => replay.raw(msgId),
    audits: (q) => replay.audits(q.limit, q.beforeAuditId),
    requests: createRequestAdmin(parts, config, clock, logger),
    ops: createOpsReads(parts, composed.samples, clock),
    compare: createCompareAdmin(config.compare, liveFlights),
  };
  let http: ServiceHttp;
  try {
    http = service ?? (await startServiceHttp(config, logger));
  } catch (e) {
    controller.abort();
    await loops.done;
    await tasks?.resultTopic?.stop();
    throw e;
  }
  http.attach(ctx);
  http.setReadiness({ role: "running" });
  const { url } = http;
  logger.info("msgx running", { listen: url, profile: config.profile, parts: parts.kind, shadow: config.shadow });

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      logger.info("msgx stopping: finishing current steps");
      http.setReadiness({ role: "stopping" });
      http.detach();
      await http.close();
      controller.abort();
      await loops.done;
      await tasks?.resultTopic?.stop();
      await router.settle(AbortSignal.timeout(LAST_FLUSH_MS));
      await parts.close();
      logger.info("msgx stopped");
    })().catch((e: unknown) => {
      logger.error("stop failed", { error: errorMessage(e) });
      throw e;
    }));
  return { url, stop, stopped: router.stopped, wake: loops.wake };
}
