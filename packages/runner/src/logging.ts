import { writeSync } from "node:fs";
import { isMainThread } from "node:worker_threads";
import pino from "pino";
import type { Logger } from "@msgx/core";
import { LogDestination } from "./log-destination.js";

/** Keys whose whole value is a secret, wherever they appear. */
const SECRET_KEYS = ["token", "password", "authorization", "*.token", "*.password", "*.authorization", "headers.authorization", "*.headers.authorization"];

/** `scheme://user:secret@host` → `scheme://user:[redacted]@host`: the credential goes, the rest of the URL (host, path) stays. */
const URL_CREDENTIAL = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@]*):[^\s/@]*@/gi;

/** Scrubs URL credentials from every string in a log line's fields (objects and arrays walked a few levels deep). */
export function scrubCredentials(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return value.replace(URL_CREDENTIAL, "$1:[redacted]@");
  if (depth >= 4 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => scrubCredentials(v, depth + 1));
  if (value instanceof Error) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scrubCredentials(v, depth + 1)]));
}

/**
 * The runner's structured JSON logger (pino) behind the core's minimal `Logger`: one JSON object
 * per line, nothing else on its stream — a file descriptor (stdout by default), a stream, or
 * `{ file }`, appended to synchronously (the directory made if missing) so no line is lost at exit. Secrets are hidden, not paths: token, password and
 * authorization values are redacted wherever they appear, and a URL keeps its host and path but
 * loses the password it carries (`postgres://msgx:[redacted]@db/msgx`). A file descriptor
 * destination is a `LogDestination`: a dead stdout drops the lines, never holds the process, and
 * is said once on stderr.
 */
export function createLogger(level: string, destination: number | NodeJS.WritableStream | { readonly file: string } = 1): Logger & { pino: pino.Logger } {
  const p = pino(
    {
      level,
      base: { svc: "msgx" },
      redact: { paths: SECRET_KEYS, censor: "[redacted]" },
      formatters: { log: (fields) => scrubCredentials(fields) as Record<string, unknown> },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    typeof destination === "number"
      ? new LogDestination(destination, destination === 1 && isMainThread ? sayStdoutClosed : undefined)
      : "file" in destination
        ? pino.destination({ dest: destination.file, sync: true, append: true, mkdir: true })
        : destination,
  );
  const scrub = (msg: string) => msg.replace(URL_CREDENTIAL, "$1:[redacted]@");
  return {
    pino: p,
    debug: (msg, fields) => p.debug(fields ?? {}, scrub(msg)),
    info: (msg, fields) => p.info(fields ?? {}, scrub(msg)),
    warn: (msg, fields) => p.warn(fields ?? {}, scrub(msg)),
    error: (msg, fields) => p.error(fields ?? {}, scrub(msg)),
  };
}

/** Resolves once the lines logged so far are written (or their destination broke), or after `budgetMs` whatever the destination does. */
export function flushLogs(logger: { pino: pino.Logger }, budgetMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, budgetMs);
    logger.pino.flush(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** Told on stderr when stdout's reader is gone; if stderr is gone too, nothing is said. */
function sayStdoutClosed(error: NodeJS.ErrnoException): void {
  try {
    writeSync(2, `msgx: stdout is closed (${error.code ?? error.message}): the JSON log lines are dropped from now on; the runner goes on running\n`);
  } catch {
    // stderr is gone as well.
  }
}
