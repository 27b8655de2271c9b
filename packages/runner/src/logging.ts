import pino from "pino";
import type { Logger } from "@msgx/core";

/**
 * The runner's structured JSON logger (pino) behind the core's minimal `Logger`. Fields that
 * could carry secrets are redacted wherever they appear.
 */
export function createLogger(level: string, destination: number | NodeJS.WritableStream = 1): Logger & { pino: pino.Logger } {
  const p = pino(
    {
      level,
      base: { svc: "msgx" },
      redact: { paths: ["token", "password", "url", "*.token", "*.password", "*.url", "authorization"], censor: "[redacted]" },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    typeof destination === "number" ? pino.destination({ fd: destination, sync: false }) : destination,
  );
  return {
    pino: p,
    debug: (msg, fields) => p.debug(fields ?? {}, msg),
    info: (msg, fields) => p.info(fields ?? {}, msg),
    warn: (msg, fields) => p.warn(fields ?? {}, msg),
    error: (msg, fields) => p.error(fields ?? {}, msg),
  };
}
