/** Structured fields attached to a log line: message and event ids, counts, error classes. */
export type LogFields = Readonly<Record<string, unknown>>;

/**
 * A minimal structured logger. The runner passes pino; the core never depends on it. A logger must
 * never throw and never block: a broken log sink must not stop the pump.
 */
export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
