import { systemClock, type Clock, type Logger, type PipelineRouter } from "@msgx/core";
import type { MsgxConfig } from "../config/config-schema.js";
import { checkListener } from "../config/secure-listener.js";
import { createLogger } from "../logging.js";
import type { AppParts } from "./app-parts.js";
import { buildParts, type StartProgress } from "./build-parts.js";
import { createExchangeRouter } from "./exchange-router.js";
import { startPipeline, type RunningApp } from "./pipeline-app.js";
import { routerIngress, type Receive } from "./router-ingress.js";
import type { ServiceHttp } from "./service-http.js";
import { startTracing } from "../tracing/start-tracing.js";

export interface ExchangeOptions {
  /** Default: the runner's pino logger at `log.level`, on stdout. */
  readonly logger?: Logger;
  /** The one clock of every store and step. Default: the system clock. */
  readonly clock?: Clock;
  /** Wraps the built parts before anything uses them (the benchmarks' probes, a test's faults). */
  readonly decorate?: (parts: AppParts) => AppParts;
  /**
   * A server already listening (`msgx run` starts it before anything else): `start` attaches the
   * pipeline's routes to it instead of listening itself; once started, `stop` closes it.
   */
  readonly http?: ServiceHttp;
  /** Told which dependency is being opened and when the wait for leadership begins (`/readyz`). */
  readonly progress?: StartProgress;
  /** Aborts the wait for leadership or a Kafka connect: `createExchange` rejects with every opened part closed. */
  readonly signal?: AbortSignal;
}

/** A composed exchange: built, not running until `start`. */
export interface Exchange {
  readonly config: MsgxConfig;
  /** Every port the exchange runs over (after `decorate`). */
  readonly parts: AppParts;
  /** The pipeline router: its steps, wake edges and horizon. */
  readonly router: PipelineRouter;
  /** Starts one loop per router step and the HTTP server; resolves with the listening URL. Once only. */
  start(): Promise<string>;
  /** The ingress without HTTP, as `POST /cminmsgs/send` does (before `start`, nothing is woken). */
  readonly receive: Receive;
  /**
   * Stops intake, lets every step finish its current unit, settles the last writes, flushes the
   * coalesced schd topic (what is due goes now, not at the next flush period), closes the server
   * and every part. Safe before `start` and more than once.
   */
  stop(): Promise<void>;
  /** Resolves when the exchange must stop by itself: `fenced`, or `leadership lost: <why>`. */
  readonly stopped: Promise<string>;
}

/**
 * The public composition of msgx (docs/exchange.md): builds the parts the configuration picks
 * (`buildParts`), the pipeline router with every step the runner hosts, and — on `start` — the
 * loops and the HTTP server. `msgx run`, the benchmarks and integrators all start msgx this way.
 * A part that cannot open, or a configuration the processors cannot serve, rejects with every
 * opened part closed again.
 */
export async function createExchange(config: MsgxConfig, options: ExchangeOptions = {}): Promise<Exchange> {
  const logger = options.logger ?? createLogger(config.log.level);
  // A server given was checked before it started listening.
  if (!options.http) checkListener(config, logger);
  const clock = options.clock ?? systemClock;
  const stopTracing = startTracing(config.tracing, logger);
  const built = await buildParts(config, logger, {
    clock,
    ...(options.progress ? { progress: options.progress } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  }).catch(async (e: unknown) => {
    await stopTracing();
    throw e;
  });
  let parts: AppParts;
  let composed: ReturnType<typeof createExchangeRouter>;
  try {
    parts = options.decorate ? options.decorate(built) : built;
    composed = createExchangeRouter(parts, config, logger, clock);
  } catch (e) {
    await built.close();
    await stopTracing();
    throw e;
  }
  const { router } = composed;
  let running: Promise<RunningApp> | undefined;
  let stopping: Promise<void> | undefined;
  const start = () =>
    (running ??= startPipeline(parts, config, logger, clock, composed, options.http).catch(async (e: unknown) => {
      await parts.close();
      throw e;
    }));
  return {
    config,
    parts,
    router,
    stopped: router.stopped,
    start: async () => (await start()).url,
    receive: routerIngress(router, (names) => running?.then((app) => app.wake(names), () => undefined)).receive,
    stop: () => (stopping ??= (running ? running.then((app) => app.stop(), () => undefined) : parts.close()).finally(stopTracing)),
  };
}
