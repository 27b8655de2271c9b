import { errorMessage, MsgxError, type PipelineStatus } from "@msgx/core";
import { buildParts } from "../app/build-parts.js";
import { startPipeline } from "../app/pipeline-app.js";
import { airportDay } from "../demo/airport-day.js";
import { readJsonlTopic } from "../embedded/jsonl-delivery-port.js";
import { createLogger } from "../logging.js";
import { httpAdmin } from "./admin-api.js";
import { configFrom, type CommonFlags } from "./common-options.js";

interface DemoFlags extends CommonFlags {
  readonly flights: string;
  readonly updates: string;
  readonly seed: string;
  readonly url?: string;
}

/**
 * `msgx demo`: feeds a generated airport day through `POST /cminmsgs/send` (of a runner it starts,
 * or of `--url`), waits until everything is processed and delivered, and prints a summary.
 */
export async function demoCommand(flags: DemoFlags): Promise<void> {
  const config = configFrom(flags);
  const token = config.http.token;
  let base = flags.url;
  let stop: (() => Promise<void>) | undefined;
  if (!base) {
    const parts = await buildParts(config, createLogger("warn", 2));
    const app = await startPipeline(parts, { ...config, http: { ...config.http, port: Number(flags.httpPort ?? 0) } }, createLogger("warn", 2));
    base = app.url;
    stop = app.stop;
  }
  try {
    const day = airportDay({ flights: int(flags.flights), updates: int(flags.updates), seed: int(flags.seed) });
    const admin = httpAdmin(base, token);
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
    const events = flags.url
      ? undefined
      : Object.fromEntries([config.kafka.msgTopic, config.kafka.schdTopic, config.kafka.refTopic].map((t) => [t, readJsonlTopic(config.dataDir, t).length]));
    const kinds = new Map<string, number>();
    for (const m of day) kinds.set(m.kind, (kinds.get(m.kind) ?? 0) + 1);
    const total = day.length;
    print([
      `msgx demo — one airport day (seed ${flags.seed})`,
      `  sent:        ${total} messages (${[...kinds].map(([k, n]) => `${k} ${n}`).join(", ")})`,
      `  processed:   ${Object.entries(status.byStatus).map(([s, n]) => `${s} ${n}`).join(", ")}`,
      `  events:      ${events ? Object.entries(events).map(([t, n]) => `${t} ${n}`).join(", ") : "see the broker"} (pending: ${Object.entries(status.delivery).map(([t, d]) => `${t} ${d.pending}`).join(", ") || "none"})`,
      `  dead letters (${dead.length}):`,
      ...[...reasons].map(([r, n]) => `    ${n} × ${r}`),
      `  throughput:  ingress ${rate(total, posted - started)} msg/s; end to end ${rate(total, done - started)} msg/s (${((done - started) / 1000).toFixed(1)} s, delivered and flushed)`,
    ]);
  } finally {
    await stop?.();
  }
}

async function post(base: string, token: string | undefined, xml: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      const res = await fetch(new URL("/cminmsgs/send", base), {
        method: "POST",
        headers: { "content-type": "application/xml", ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: xml,
      });
      if (res.ok) return;
      if (res.status < 500 || attempt >= 5) throw new MsgxError("INFRA", `ingress answered ${res.status}: ${await res.text()}`, { retriable: false });
    } catch (e) {
      if (attempt >= 5) throw e;
    }
    await new Promise((r) => setTimeout(r, 200 * 2 ** attempt));
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
