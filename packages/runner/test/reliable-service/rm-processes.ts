/**
 * The reliable-service e2e suites' cast, each its own Node process with no msgx import: the
 * producer (producer.mjs, fetch only), the producer's check-back endpoint (checker.mjs, node:http)
 * and consumers (consumer.mjs: kafkajs, or the embedded runner's JSON-lines file). This file only
 * spawns them and reads what they print.
 */
import { fileURLToPath } from "node:url";
import { spawnScript as spawnProcess, stopScript, type ScriptProcess } from "../script-process.js";

const script = (name: string) => fileURLToPath(new URL(`./${name}`, import.meta.url));

/** The reliable-message service's token the suites configure (`reliable.token`). */
export const RM_TOKEN = "rm-e2e-token-0123456789";
/** The token the service sends to the checker (`reliable.queues.<q>.checkerToken`). */
export const CHECKER_TOKEN = "checker-e2e-token-0123456789";

type Child = ScriptProcess;

const spawnScript = (name: string, args: readonly string[]): Child => spawnProcess(script(name), args);
const stopChild = (c: Child): Promise<void> => stopScript(c, 5_000);

export interface ProducerAnswer {
  readonly op: string;
  readonly id: string;
  readonly status: number;
  readonly body: any;
}

/** Runs producer.mjs with `steps` and returns one answer per step. */
export async function produce(url: string, steps: readonly Record<string, unknown>[], token: string = RM_TOKEN): Promise<ProducerAnswer[]> {
  const p = spawnScript("producer.mjs", ["--url", url, ...(token ? ["--token", token] : []), JSON.stringify(steps)]);
  const code = await p.exited;
  if (code !== 0) throw new Error(`producer exited ${code}:\n${p.output()}`);
  return p.lines as ProducerAnswer[];
}

/**
 * The service's view of a message (`GET /rm/v1/messages/<id>`), undefined when 404. The test reads
 * it directly: polling through a producer process per look would only load the machine.
 */
export async function getMessage(url: string, id: string): Promise<Record<string, any> | undefined> {
  const res = await fetch(new URL(`/rm/v1/messages/${encodeURIComponent(id)}`, url), { headers: { authorization: `Bearer ${RM_TOKEN}` } });
  if (res.status === 404) return undefined;
  const body = (await res.json()) as { message?: Record<string, any> };
  if (res.status !== 200 || body.message === undefined) throw new Error(`GET ${id}: ${res.status} ${JSON.stringify(body)}`);
  return body.message;
}

export interface CheckerCall {
  readonly queue: string;
  readonly messageId: string;
  readonly checkCount: number;
  readonly at: number;
  readonly status: number;
  readonly verdict: string | null;
  readonly auth: string | null;
  readonly request: Record<string, unknown>;
}

export interface Checker {
  /** `http://127.0.0.1:<port>`; a queue's checker URL is `${url}/check/<queue>`. */
  readonly url: string;
  control(body: { verdicts?: Record<string, "confirm" | "cancel" | "unknown">; failForMs?: Record<string, number> }): Promise<void>;
  calls(): Promise<CheckerCall[]>;
  stop(): Promise<void>;
}

export async function startChecker(token: string = CHECKER_TOKEN): Promise<Checker> {
  const c = spawnScript("checker.mjs", ["--token", token]);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`checker did not start:\n${c.output()}`)), 15_000);
    c.child.stdout!.on("data", () => {
      const m = /checker listening on (http:\/\/\S+)/.exec(c.output());
      if (m) resolve(m[1]!);
    });
    void c.exited.then((code) => reject(new Error(`checker exited ${code}:\n${c.output()}`))).finally(() => clearTimeout(timer));
  });
  const json = async (path: string, init?: RequestInit) => (await fetch(new URL(path, url), init)).json();
  return {
    url,
    control: async (body) => void (await json("/control", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })),
    calls: async () => (await json("/calls")) as CheckerCall[],
    stop: () => stopChild(c),
  };
}

export interface ConsumedRecord {
  readonly record: {
    readonly topic: string;
    readonly partition: number;
    readonly offset: number;
    readonly key: string | null;
    readonly value: Record<string, any> | null;
    readonly headers: Readonly<Record<string, string | null>>;
  };
  /** The handler ran for the first time for this message id (the consumer's dedupe). */
  readonly effect: boolean;
  readonly answer: { readonly op: "ack" | "reject"; readonly status: number } | null;
  /** A consumer of one subscription read a record naming another one (never answered). */
  readonly foreign?: true;
}

export interface Consumer {
  /** Every record read so far, in the order read. */
  records(): ConsumedRecord[];
  /** The records of one message id. */
  of(messageId: string): ConsumedRecord[];
  /** Resolves once it reads (a Kafka consumer waits for its topic to exist first). */
  ready(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
  readonly output: () => string;
}

export type ConsumerSource = { readonly brokers: string; readonly group: string } | { readonly jsonl: string };

/**
 * Starts consumer.mjs on `topic`; resolves once it reads (a Kafka consumer: the topic exists and its
 * first fetch is done), or at once with `waitReady: false` (the service creates a queue's topics on
 * its first send: wait with `ready()` after that).
 */
export async function startConsumer(
  topic: string,
  source: ConsumerSource,
  opts: { url?: string; mode?: "ack" | "none"; failTimes?: number; silentTimes?: number; waitReady?: boolean; readyTimeoutMs?: number; subscription?: string; delayMs?: number; onlySuffix?: string } = {},
): Promise<Consumer> {
  const args = [
    "--topic",
    topic,
    ...("jsonl" in source ? ["--jsonl", source.jsonl] : ["--brokers", source.brokers, "--group", source.group]),
    ...(opts.url ? ["--url", opts.url, "--token", RM_TOKEN] : []),
    "--mode",
    opts.mode ?? "ack",
    "--fail-times",
    String(opts.failTimes ?? 0),
    "--silent-times",
    String(opts.silentTimes ?? 0),
    ...(opts.onlySuffix !== undefined ? ["--only-suffix", opts.onlySuffix] : []),
    ...(opts.subscription !== undefined ? ["--subscription", opts.subscription] : []),
    ...(opts.delayMs !== undefined ? ["--delay-ms", String(opts.delayMs)] : []),
  ];
  const c = spawnScript("consumer.mjs", args);
  const records = () => c.lines.filter((l): l is ConsumedRecord => typeof l === "object" && l !== null && "record" in l);
  const consumer: Consumer = {
    records,
    of: (id) => records().filter((r) => (r.record.value?.["messageId"] ?? r.record.key) === id),
    ready: async (timeoutMs = 60_000) => {
      const deadline = Date.now() + timeoutMs;
      while (!c.lines.some((l) => typeof l === "object" && l !== null && "ready" in l)) {
        if (c.child.exitCode !== null) throw new Error(`consumer exited ${c.child.exitCode}:\n${c.output()}`);
        if (Date.now() > deadline) throw new Error(`consumer on ${topic} not ready:\n${c.output()}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    stop: () => stopChild(c),
    output: c.output,
  };
  if (opts.waitReady !== false) await consumer.ready(opts.readyTimeoutMs);
  return consumer;
}

/** The sum of a Prometheus counter or gauge over its labels (0 when absent), from `/metrics`. */
export async function metric(url: string, name: string, labels: Readonly<Record<string, string>> = {}): Promise<number> {
  const text = await (await fetch(new URL("/metrics", url))).text();
  let sum = 0;
  for (const line of text.split("\n")) {
    const m = /^([a-zA-Z_:][\w:]*)(\{([^}]*)\})? ([-+\d.eE]+|NaN)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[3] ?? "").matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) sum += Number(m[4]);
  }
  return sum;
}
