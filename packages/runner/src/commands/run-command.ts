import { setTimeout as sleep } from "node:timers/promises";
import { errorMessage, isMsgxError, type Logger } from "@msgx/core";
import { createExchange, type Exchange } from "../app/create-exchange.js";
import { startServiceHttp, type ServiceHttp } from "../app/service-http.js";
import type { MsgxConfig } from "../config/config-schema.js";
import { checkListener } from "../config/secure-listener.js";
import { createLogger, flushLogs } from "../logging.js";
import { configFrom, type CommonFlags } from "./common-options.js";
import { EXIT } from "./exit-codes.js";
import { exponentialBackoff } from "@msgx/core";

/** How long a graceful stop may take before the process exits with 1. */
const STOP_DEADLINE_MS = 30_000;
/** How long a stop before the pipeline runs waits for an open in progress (a Kafka connect) to give up. */
const OPEN_SETTLE_MS = 5_000;
/** How long the exit waits for the last log lines to be written: a stdout that does not read loses them. */
const LOG_FLUSH_MS = 1_000;
/** The backoff between attempts to open a dependency that is down at start. */
const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 30_000;

/**
 * `msgx run`: listens at once (`/healthz`, `/readyz`, `/metrics` in every role), opens the
 * dependencies — retrying with backoff while one is down, `/readyz` naming it — waits for the
 * leadership as a standby, then runs until SIGTERM/SIGINT. In any phase the first signal stops
 * cleanly and exits 0 (a running pipeline lets its current run commit or roll back); a second
 * signal, or a stop that outlives the deadline, exits 1; leadership lost exits 3.
 */
export async function runCommand(flags: CommonFlags): Promise<void> {
  // A closed stderr (its reader gone) loses the lines for the person at the terminal, never the runner.
  process.stderr.on("error", () => undefined);
  const config = configFrom(flags);
  const logger = createLogger(config.log.level);
  checkListener(config, logger);
  const http = await startServiceHttp(config, logger);
  process.stderr.write(`msgx probes on ${http.url} (starting)\n`);
  const controller = new AbortController();
  let app: Exchange | undefined;
  let opening: Promise<unknown> = Promise.resolve();

  let signals = 0;
  const shutdown = (why: string, code: number) => {
    signals += 1;
    if (signals > 1) {
      logger.error("second signal: exiting now");
      process.exit(EXIT.failure);
    }
    logger.info("shutdown requested", { why, role: http.readiness().role });
    http.setReadiness({ role: "stopping" });
    controller.abort();
    const deadline = setTimeout(() => {
      logger.error("stop deadline passed: exiting", { deadlineMs: STOP_DEADLINE_MS });
      process.exit(EXIT.failure);
    }, STOP_DEADLINE_MS);
    deadline.unref();
    stopAll()
      .then(() => flushLogs(logger, LOG_FLUSH_MS))
      .then(() => process.exit(code))
      .catch((e: unknown) => {
        logger.error("stop failed", { error: errorMessage(e) });
        process.exit(EXIT.failure);
      });
  };
  const stopAll = async () => {
    const settled = await Promise.race([opening.then(() => true, () => true), sleep(OPEN_SETTLE_MS, false, { ref: false })]);
    if (!settled) logger.warn("stopping while a dependency is still being opened: exiting without waiting for it", { waitedMs: OPEN_SETTLE_MS });
    await app?.stop();
    await http.close();
  };
  process.on("SIGTERM", () => shutdown("SIGTERM", EXIT.ok));
  process.on("SIGINT", () => shutdown("SIGINT", EXIT.ok));

  const attempt = openWithRetry(config, logger, http, controller.signal);
  opening = attempt;
  app = await attempt;
  if (app === undefined) return;
  const url = await app.start();
  const { kind } = app.parts;
  // For the person at the terminal; stdout carries only the JSON log lines.
  process.stderr.write(`msgx listening on ${url} (${kind}${kind === "embedded" ? `, data in ${config.dataDir}` : ""})\n`);
  void app.stopped.then((why) => shutdown(why, EXIT.leadershipLost));
}

/**
 * Creates the exchange, retrying with backoff while a dependency is unavailable; any other error
 * (CONFIG first) is thrown at once. Resolves undefined when `signal` ends the attempts.
 */
async function openWithRetry(config: MsgxConfig, logger: Logger, http: ServiceHttp, signal: AbortSignal): Promise<Exchange | undefined> {
  let dependency = "state";
  let failed: { readonly dependency: string; readonly error: string } | undefined;
  for (let attempts = 1; ; attempts += 1) {
    const progress = {
      opening: (name: string) => {
        dependency = name;
        const error = failed?.dependency === name ? { error: failed.error } : {};
        if (!signal.aborted) http.setReadiness({ role: "starting", dependency, attempts, ...error });
      },
      standby: () => void (signal.aborted || http.setReadiness({ role: "standby" })),
    };
    try {
      const app = await createExchange(config, { logger, http, progress, signal });
      if (!signal.aborted) return app;
      await app.stop();
      return undefined;
    } catch (e) {
      if (signal.aborted) return undefined;
      if (!(isMsgxError(e) && e.kind === "DEPENDENCY_UNAVAILABLE")) throw e;
      failed = { dependency, error: errorMessage(e) };
      const retryInMs = exponentialBackoff({ initialMs: RETRY_FIRST_MS, maxMs: RETRY_MAX_MS }, attempts);
      http.setReadiness({ role: "starting", ...failed, attempts });
      logger.error("dependency unavailable at start: retrying", { ...failed, attempts, retryInMs });
      const waited = await sleep(retryInMs, true, { signal }).catch(() => false);
      if (!waited) return undefined;
    }
  }
}
