/**
 * An open-loop HTTP load generator for `POST /cminmsgs/send`: request i is due at
 * `t0 + i / rate` whether or not earlier ones were answered (no coordinated omission), up to
 * `maxInFlight` at once on keep-alive connections. Latency is measured from the instant a request
 * was due (a late start counts against the server) and, separately, from when it was written.
 */
import { Agent, request } from "node:http";
import { latencyStats, type LatencyStats } from "./infra.js";

export interface OpenLoopOptions {
  readonly url: string;
  readonly bodies: readonly string[];
  readonly rate: number;
  readonly maxInFlight?: number;
  readonly contentType?: string;
  readonly token?: string;
}

export interface LoadResult {
  readonly offeredPerSecond: number;
  readonly sent: number;
  readonly ok: number;
  readonly refused: number;
  readonly failed: number;
  /** The distinct errors of failed requests (at most 5), so a failure says what it was. */
  readonly failures: readonly string[];
  readonly seconds: number;
  readonly achievedPerSecond: number;
  /** From the instant each request was due to its answer. */
  readonly latencyMs: LatencyStats;
  /** From the instant each request was written to its answer. */
  readonly serviceMs: LatencyStats;
  /** Requests that could not start on time because `maxInFlight` were outstanding. */
  readonly lateStarts: number;
  /** Mailbox id returned for body i (index in `bodies`), when it was accepted. */
  readonly ids: (number | undefined)[];
}

export async function openLoop(o: OpenLoopOptions): Promise<LoadResult> {
  const target = new URL("/cminmsgs/send", o.url);
  const maxInFlight = o.maxInFlight ?? 256;
  const agent = new Agent({ keepAlive: true, maxSockets: maxInFlight });
  const latencies: number[] = [];
  const service: number[] = [];
  const ids: (number | undefined)[] = new Array(o.bodies.length).fill(undefined);
  let ok = 0;
  let refused = 0;
  let failed = 0;
  const failures = new Set<string>();
  let inFlight = 0;
  let next = 0;
  let lateStarts = 0;
  const headers: Record<string, string> = { "content-type": o.contentType ?? "application/xml" };
  if (o.token) headers["authorization"] = `Bearer ${o.token}`;

  const t0 = performance.now();
  let lastAnswer = t0;
  const fire = (i: number, due: number) => {
    inFlight += 1;
    const started = performance.now();
    if (started - due > 5) lateStarts += 1;
    const body = o.bodies[i]!;
    const req = request(target, { method: "POST", agent, headers: { ...headers, "content-length": Buffer.byteLength(body) } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => (text += d));
      res.on("end", () => {
        const now = performance.now();
        lastAnswer = now;
        latencies.push(now - due);
        service.push(now - started);
        if (res.statusCode === 200) {
          ok += 1;
          ids[i] = Number(text.trim());
        } else refused += 1;
        inFlight -= 1;
      });
    });
    req.on("error", (e: NodeJS.ErrnoException) => {
      failed += 1;
      if (failures.size < 5) failures.add(`${e.code ?? e.name}: ${e.message} (after ${Math.round(performance.now() - started)} ms)`);
      inFlight -= 1;
    });
    req.end(body);
  };

  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      while (next < o.bodies.length && inFlight < maxInFlight) {
        const due = t0 + (next / o.rate) * 1000;
        if (due > now) break;
        fire(next, due);
        next += 1;
      }
      if (next >= o.bodies.length && inFlight === 0) return resolve();
      setTimeout(tick, 1);
    };
    tick();
  });
  agent.destroy();
  const seconds = (lastAnswer - t0) / 1000;
  return {
    offeredPerSecond: o.rate,
    sent: next,
    ok,
    refused,
    failed,
    failures: [...failures],
    seconds,
    achievedPerSecond: ok / seconds,
    latencyMs: latencyStats(latencies),
    serviceMs: latencyStats(service),
    lateStarts,
    ids,
  };
}
