import type { Logger } from "@msgx/core";
import kafkajs, { type logCreator } from "kafkajs";

const { logLevel } = kafkajs;

/** kafkajs warnings the port causes on purpose and handles itself: logged at debug, not warn. */
const EXPECTED_WARNINGS: readonly RegExp[] = [
  // The port limits retries so an outage reaches the caller's breaker quickly, and rebuilds the
  // producer (new producer id, fresh sequence numbers) after every failed send.
  /Limiting retries for the idempotent producer/,
  /KafkaJS v2\.0\.0 switched default partitioner/,
];

/**
 * Routes kafkajs log lines to a msgx `Logger`, with the kafkajs namespace as a field. kafkajs
 * errors become warnings: a failure that matters reaches the caller as a `MsgxError` and is
 * logged there once, while kafkajs logs every retry of it.
 */
export function kafkajsLogCreator(logger: Logger): logCreator {
  return () =>
    ({ namespace, level, log }) => {
      const { message, timestamp: _timestamp, ...extra } = log;
      const fields = { kafkajs: namespace, ...extra };
      const text = `kafkajs: ${message}`;
      switch (level) {
        case logLevel.ERROR:
        case logLevel.WARN:
          if (EXPECTED_WARNINGS.some((re) => re.test(message))) logger.debug(text, fields);
          else logger.warn(text, fields);
          break;
        case logLevel.INFO:
          logger.info(text, fields);
          break;
        default:
          logger.debug(text, fields);
      }
    };
}
