import { join } from "node:path";
import { errorMessage, isMsgxError, MsgxError, type PipelineStatus } from "@msgx/core";
import { createExchange } from "../app/create-exchange.js";
import { airportDay } from "../demo/airport-day.js";
import { readJsonlTopic } from "../embedded/jsonl-delivery-port.js";
import { createLogger } from "../logging.js";
import { httpAdmin } from "./admin-api.js";
import { checkRunnerUrl, unreachableRunner } from "./admin-http.js";
import { configFrom, type CommonFlags } from "./common-options.js";
import { exponentialBackoff } from "@msgx/core";

/** The waits between tries of the ingress: 0.2 s doubling, as many as the five retries take. */
const INGRESS_RETRY = { initialMs: 200, maxMs: 200 * 2 ** 5 };

interface DemoFlags extends CommonFlags {
  readonly flights: string;
  readonly updates: string;
  readonly seed: string;
  readonly url?: string;
  readonly verbose?: boolean;
}

/**
 * `msgx demo`: feeds a generated airport day through `POST /cminmsgs/send` (of a runner it starts,
 * or of `--url`), waits until everything is processed and delivered, and prints a summary. The
 * runner's counts are totals of everything it holds, so on a data directory (or runner) that
 * already has messages the summary says so and gives this run's share beside each total.
 * The terminal gets the progress bar and the summary only: the runner it starts logs to
 * `<data-dir>/demo.log` (the summary says where), or to stderr with `--verbose`.
 */
export async function demoCommand(flags: DemoFlags): Promise<void> {
  const config = configFrom(flags);
  const token = config.http.token;
  if (flags.url !== undefined) checkRunnerUrl(flags.url);
  let base = flags.url;
  let stop: (() => Promise<void>) | undefined;
  const logFile = flags.url || flags.verbose ? undefined : join(config.dataDir, DEMO_LOG);
  if (!base) {
    const logger = createLogger(config.log.level, logFile ? { file: logFile } : 2);
    const app = await createExchange({ ...config, http: { ...config.http, port: Number(flags.httpPort ?? 0) } }, { logger });
    base = await app.start();
    stop = app.stop;
  }
  try {
    const day = airportDay({ flights: int(flags.flights), updates: int(flags.updates), seed: int(flags.seed) });
    const admin = httpAdmin(base, token);
    const before = await admin.status().catch((e: unknown) => {
      throw isMsgxError(e) && e.kind === "DEPENDENCY_UNAVAILABLE" ? unreachable(base!, e.cause ?? e) : e;
    });
    const eventTopics = [config.kafka.msgTopic, config.kafka.schdTopic, config.kafka.refTopic];
    const countEvents = () => (flags.url ? undefined : Object.fromEntries(eventTopics.map((t) => [t, readJsonlTopic(config.dataDir, t).length])));
    const eventsBefore = countEvents();
    const started = Date.now();
    for (let i = 0; i < day.length; i++) {
      await post(base, token, day[i]!.xml);
      if (i % 50 === 0 || i === day.length - 1) progress(i + 1, day.length);
    }
    process.stderr.write("\n");
    const posted = Date.now();
    const status = await waitQuiet(admin, 120_000);
    const done = Date.now();
    const dead = await admin.deadLetters({ limit: 1000 });
    const reasons = new Map<string, number>();
    for (const d of dead) {
      const key = `${d.errorClass}: ${(d.reason ?? "").slice(0, 80)}`;
      reasons.set(key, (reasons.get(key) ?? 0) + 1);
    }
    const events = countEvents();
    const held = Object.values(before.byStatus).reduce((a, n) => a + n, 0);
    const thisRun = (total: number, earlier: number) => (held > 0 ? `${total} (this run ${total - earlier})` : `${total}`);
    const kinds = new Map<string, number>();
    for (const m of day) kinds.set(m.kind, (kinds.get(m.kind) ?? 0) + 1);
    const total = day.length;
    print([
      `msgx demo — one airport day (seed ${flags.seed})`,
      ...(held > 0 ? [`  note:        ${flags.url ? `the runner at ${base}` : `data directory ${config.dataDir}`} already held ${held} messages; counts are totals, with this run's share beside each`] : []),
      `  sent:        ${total} messages (${[...kinds].map(([k, n]) => `${k} ${n}`).join(", ")})`,
      `  processed:   ${Object.entries(status.byStatus).map(([s, n]) => `${s} ${thisRun(n, before.byStatus[s as keyof PipelineStatus["byStatus"]] ?? 0)}`).join(", ")}`,
      `  events:      ${events ? Object.entries(events).map(([t, n]) => `${t} ${thisRun(n, eventsBefore?.[t] ?? 0)}`).join(", ") : "not counted with --url (in the runner's Kafka topics, or events/<topic>.jsonl in its data directory)"} (pending: ${Object.entries(status.delivery).map(([t, d]) => `${t} ${d.pending}`).join(", ") || "none"})`,
      `  dead letters (${thisRun(status.deadLetters, before.deadLetters)}):`,
      ...[...reasons].map(([r, n]) => `    ${n} × ${r}`),
      `  throughput:  ingress ${rate(total, posted - started)} msg/s; end to end ${rate(total, done - started)} msg/s (${((done - started) / 1000).toFixed(1)} s, delivered and flushed)`,
      ...(logFile ? [`  runner log:  ${logFile} (--verbose prints it here instead)`] : []),
    ]);
  } finally {
    await stop?.();
  }
}

/** The file in the data directory the demo's runner logs to, unless `--verbose`. */
export const DEMO_LOG = "demo.log";

/** The demo's way out of an unreachable `--url`: the demo can start its own runner. */
const unreachable = (base: string, cause: unknown) => unreachableRunner(base, cause, "start one with `msgx run` and pass the URL it prints, or drop --url and the demo starts its own");

/** Posts one message; a 5xx or a dropped connection is retried with backoff, a 4xx is not. */
async function post(base: string, token: string | undefined, xml: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(new URL("/cminmsgs/send", base), {
      method: "POST",
      headers: { "content-type": "application/xml", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: xml,
    }).catch((e: unknown) => {
      if (attempt >= 5) throw unreachable(base, e);
      return undefined;
    });
    if (res?.ok) return;
    if (res && (res.status < 500 || attempt >= 5)) throw new MsgxError("INFRA", `ingress answered ${res.status}: ${await res.text()}`, { retriable: false });
    await new Promise((r) => setTimeout(r, exponentialBackoff(INGRESS_RETRY, attempt + 1)));
  }
}

async function waitQuiet(admin: ReturnType<typeof httpAdmin>, timeoutMs: number): Promise<PipelineStatus> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const s = await admin.status();
    const busy = s.head !== null || s.backfillDebt > 0 || Object.values(s.delivery).some((d) => d.pending > 0);
    if (!busy) return s;
    if (Date.now() > deadline) throw new MsgxError("INFRA", `not quiet after ${timeoutMs} ms: ${errorMessage(JSON.stringify(s))}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

function progress(done: number, total: number): void {
  const width = 30;
  const filled = Math.round((done / total) * width);
  process.stderr.write(`\r  posting [${"#".repeat(filled)}${"-".repeat(width - filled)}] ${done}/${total}`);
}

const rate = (n: number, ms: number) => (ms > 0 ? Math.round((n * 1000) / ms) : n);
const print = (lines: string[]) => process.stdout.write(`${lines.join("\n")}\n`);
const int = (s: string) => {
  const n = Number(s);
  if (!Number.isSafeInteger(n) || n < 0) throw new MsgxError("CONFIG", `not a number: ${s}`);
  return n;
};
