import { errorMessage } from "@msgx/core";
import { createExchange } from "../app/create-exchange.js";
import { createLogger } from "../logging.js";
import { configFrom, type CommonFlags } from "./common-options.js";

/** How long a graceful stop may take before the process exits with 1. */
const STOP_DEADLINE_MS = 30_000;

/**
 * `msgx run`: starts the exchange and runs until SIGTERM/SIGINT. The first signal stops intake,
 * lets the current run commit or roll back, closes everything and exits 0; a second signal, or a
 * stop that outlives the deadline, exits 1.
 */
export async function runCommand(flags: CommonFlags): Promise<void> {
  const config = configFrom(flags);
  const logger = createLogger(config.log.level);
  const app = await createExchange(config, { logger });
  const url = await app.start();
  const { kind } = app.parts;
  // For the person at the terminal; stdout carries only the JSON log lines.
  process.stderr.write(`msgx listening on ${url} (${kind}${kind === "embedded" ? `, data in ${config.dataDir}` : ""})\n`);

  let signals = 0;
  const shutdown = (why: string, code: number) => {
    signals += 1;
    if (signals > 1) {
      logger.error("second signal: exiting now");
      process.exit(1);
    }
    logger.info("shutdown requested", { why });
    const deadline = setTimeout(() => {
      logger.error("stop deadline passed: exiting", { deadlineMs: STOP_DEADLINE_MS });
      process.exit(1);
    }, STOP_DEADLINE_MS);
    deadline.unref();
    app
      .stop()
      .then(() => process.exit(code))
      .catch((e: unknown) => {
        logger.error("stop failed", { error: errorMessage(e) });
        process.exit(1);
      });
  };
  process.on("SIGTERM", () => shutdown("SIGTERM", 0));
  process.on("SIGINT", () => shutdown("SIGINT", 0));
  void app.stopped.then((why) => shutdown(why, 3));
}
