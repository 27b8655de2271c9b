import { setMaxListeners } from "node:events";
import type { Server } from "node:http";
import { errorMessage, ReplayService, systemClock, type Clock, type Logger } from "@msgx/core";
import type { MsgxConfig } from "../config/config-schema.js";
import { createHttpServer, DEFAULT_HTTP_TIMEOUTS } from "../http/http-server.js";
import { driveRouter } from "../loops/router-loops.js";
import { directReliableAdmin, reliableService } from "../reliable/reliable-admin.js";
import type { AppParts } from "./app-parts.js";
import { createExchangeRouter, type ExchangeRouter } from "./exchange-router.js";
import { createRequestAdmin } from "./request-steps.js";

export interface RunningApp {
  readonly server: Server;
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
 */
export async function startPipeline(
  parts: AppParts,
  config: MsgxConfig,
  logger: Logger,
  clock: Clock = systemClock,
  composed: ExchangeRouter = createExchangeRouter(parts, config, logger, clock),
): Promise<RunningApp> {
  const { router, metrics, maintenance } = composed;
  const controller = new AbortController();
  // Every loop waits on this one signal; a dozen listeners is by design, not a leak.
  setMaxListeners(64, controller.signal);
  const loops = driveRouter(router, { logger, signal: controller.signal });

  const replay = new ReplayService({ store: parts.store, clock });
  const http = createHttpServer({
    logger,
    token: config.http.token,
    maxBodyBytes: config.http.maxBodyBytes,
    checks: parts.checks,
    receive: async (raw, traceparent) => {
      const { msgId, wake } = await router.receive(raw, traceparent === undefined ? {} : { traceparent });
      loops.wake(wake);
      return msgId;
    },
    metrics: () => metrics.render(),
    status: () => parts.status.status(),
    message: (id) => parts.store.get(id),
    flight: (flid) => parts.flights.get(flid),
    flights: (q) => parts.flights.list({ ...q, includeDeleted: false }),
    deadLetters: (q) => parts.store.list({ statuses: ["DEAD"], limit: q.limit, ...(q.afterMsgId !== undefined ? { afterMsgId: q.afterMsgId } : {}) }),
    snapshotLog: (limit) => maintenance.store.snapshotLog(limit),
    reliable: directReliableAdmin(reliableService(parts.reliable, clock, logger)),
    replayPreview: (sel) => replay.preview(sel),
    replay: async (sel, operator) => {
      const result = await replay.replay(sel, operator);
      logger.info("replay", { operator, replayed: result.replayed, refused: result.refused.map((r) => r.msgId) });
      loops.wake(router.wakes("replay"));
      return result;
    },
    requests: createRequestAdmin(parts, config, clock, logger),
  }, { ...DEFAULT_HTTP_TIMEOUTS, headersTimeoutMs: config.http.headersTimeoutMs, requestTimeoutMs: config.http.requestTimeoutMs });
  await http.listen({ port: config.http.port, host: config.http.host });
  const server = http.server;
  const address = server.address();
  const url = typeof address === "object" && address ? `http://${address.address}:${address.port}` : `http://${config.http.host}:${config.http.port}`;
  logger.info("msgx running", { listen: url, profile: config.profile, parts: parts.kind, shadow: config.shadow });

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      logger.info("msgx stopping: finishing current steps");
      await http.close();
      controller.abort();
      await loops.done;
      await router.settle();
      await parts.close();
      logger.info("msgx stopped");
    })().catch((e: unknown) => {
      logger.error("stop failed", { error: errorMessage(e) });
      throw e;
    }));
  return { server, url, stop, stopped: router.stopped, wake: loops.wake };
}
