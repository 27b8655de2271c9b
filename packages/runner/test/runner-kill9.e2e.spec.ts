import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { airportDay } from "../src/demo/airport-day.js";
import { readJsonlTopic } from "../src/embedded/jsonl-delivery-port.js";
import { eventually, spawnRunner, type RunnerProcess } from "./runner-process.js";

const KILLS = Number(process.env["MSGX_KILL_POINTS"] ?? 10);
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const env = { MSGX_SCHD_FLUSH_PERIOD_MS: "200", MSGX_PIPELINE_POLL_INTERVAL_MS: "100" };

interface Outcome {
  readonly flights: Map<string, unknown>;
  readonly lastSchd: Map<string, unknown>;
  readonly byStatus: Record<string, number>;
}

/**
 * Posts one message until a runner answers 200 (the runner may be down or restarting). Returns how
 * many tries died without an answer: each may have been appended before the runner died, so the
 * message may be in the mailbox more than once.
 */
async function deliver(current: () => RunnerProcess, xml: string): Promise<number> {
  let unanswered = 0;
  for (;;) {
    try {
      const res = await fetch(new URL("/cminmsgs/send", current().url), { method: "POST", headers: { "content-type": "application/xml" }, body: xml });
      if (res.ok) return unanswered;
    } catch {
      // down: the killer restarts it
      unanswered += 1;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function quiet(url: string): Promise<Record<string, number>> {
  return eventually(async () => {
    const s = (await (await fetch(new URL("/admin/status", url))).json()) as {
      head: unknown;
      backfillDebt: number;
      byStatus: Record<string, number>;
      delivery: Record<string, { pending: number }>;
    };
    const busy = s.head !== null || s.backfillDebt > 0 || Object.values(s.delivery).some((d) => d.pending > 0);
    return busy ? undefined : s.byStatus;
  }, 90_000, "a quiet pipeline");
}

/** The state a consumer can see, without the mailbox ids (re-posts shift them). */
async function outcome(url: string, dataDir: string, byStatus: Record<string, number>): Promise<Outcome> {
  const body = (await (await fetch(new URL("/all/flights?limit=1000", url))).json()) as { flights: { flid: string; lastMsgId?: number }[] };
  const strip = (v: unknown) => {
    if (v === null) return null;
    const { lastMsgId: _ignored, ...rest } = v as { lastMsgId?: number };
    return rest;
  };
  const lastSchd = new Map<string, unknown>();
  for (const r of readJsonlTopic(dataDir, "schd")) lastSchd.set(r.key, r.value === null ? null : strip(JSON.parse(r.value)));
  return { flights: new Map(body.flights.map((f) => [f.flid, strip(f)])), lastSchd, byStatus };
}

describe("kill -9 of the embedded runner in the middle of demo traffic", () => {
  it(`ends with the same flights and last schd records as an uninterrupted run (${KILLS} kill points)`, async () => {
    const day = airportDay({ flights: 40, updates: 260, seed: 7 });

    const refDir = mkdtempSync(join(tmpdir(), "msgx-ref-"));
    dirs.push(refDir);
    const ref = await spawnRunner(["--data-dir", refDir], env);
    for (const m of day) await deliver(() => ref, m.xml);
    const reference = await outcome(ref.url, refDir, await quiet(ref.url));
    ref.child.kill("SIGTERM");
    expect(await ref.exited).toBe(0);

    const dir = mkdtempSync(join(tmpdir(), "msgx-kill-"));
    dirs.push(dir);
    let current = await spawnRunner(["--data-dir", dir], env);
    let posted = 0;
    // A malformed message has no identity to dedupe on: a copy sent again ends DEAD(MALFORMED) too.
    let malformedResent = 0;
    const poster = (async () => {
      for (const m of day) {
        const unanswered = await deliver(() => current, m.xml);
        if (m.kind === "malformed") malformedResent += unanswered;
        posted += 1;
      }
    })();
    let seed = 12345;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let k = 0; k < KILLS; k++) {
      await new Promise((r) => setTimeout(r, 150 + random() * 900));
      current.child.kill("SIGKILL");
      await current.exited;
      current = await spawnRunner(["--data-dir", dir], env);
    }
    await poster;
    const killed = await outcome(current.url, dir, await quiet(current.url));
    current.child.kill("SIGTERM");
    expect(await current.exited).toBe(0);

    expect(posted).toBe(day.length);
    expect(killed.flights).toEqual(reference.flights);
    expect(killed.lastSchd).toEqual(reference.lastSchd);
    // Nothing lost: every message ended as in the reference; a POST whose answer died with the
    // runner was sent again and that copy ended SKIPPED as a duplicate — or DEAD(MALFORMED) again
    // when the message is malformed (no identity), as many times at most as its tries died.
    expect(killed.byStatus["SUCCEEDED"]).toBe(reference.byStatus["SUCCEEDED"]);
    expect(killed.byStatus["DEAD"]).toBeGreaterThanOrEqual(reference.byStatus["DEAD"]!);
    expect(killed.byStatus["DEAD"]).toBeLessThanOrEqual(reference.byStatus["DEAD"]! + malformedResent);
    expect(killed.byStatus["SKIPPED"]).toBeGreaterThanOrEqual(reference.byStatus["SKIPPED"]!);
    console.info(`[kill -9] ${KILLS} kills; ${malformedResent} malformed tries unanswered; reference ${JSON.stringify(reference.byStatus)}; killed ${JSON.stringify(killed.byStatus)}; flights ${killed.flights.size}`);
  }, 300_000);
});
