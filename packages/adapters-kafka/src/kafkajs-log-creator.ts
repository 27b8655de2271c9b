import type { Logger } from "@msgx/core";
import kafkajs, { type logCreator } from "kafkajs";

const { logLevel } = kafkajs;

/** kafkajs warnings the port causes on purpose and handles itself: logged at debug, not warn. */
const EXPECTED_WARNINGS: readonly RegExp[] = [
  // The port limits retries so an outage reaches the caller's breaker quickly, and rebuilds the
  // producer (new producer id, fresh sequence numbers) after every failed send.
  /Limiting retries for the idempotent producer/,
  /KafkaJS v2\.0\.0 switched default partitioner/,
  // CONCURRENT_TRANSACTIONS: a transaction's first AddPartitionsToTxn while the coordinator still
  // writes the previous commit's markers. Routine with a transactional producer (a few sends in a
  // thousand at 100 msg/s) and cleared by kafkajs' first quick retry; when the retries run out,
  // the send fails and its caller logs that once.
  /another concurrent operation on the same transaction was ongoing/,
];

/** A kafkajs line names a failed response in its message and the broker's error in `error`. */
const expected = (message: string, error: unknown): boolean =>
  EXPECTED_WARNINGS.some((re) => re.test(message) || (typeof error === "string" && re.test(error)));

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
          if (expected(message, extra["error"])) logger.debug(text, fields);
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
