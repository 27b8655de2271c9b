import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { PipelineStep } from "@msgx/core/testing";
import { silentLogger, Target } from "@msgx/core";
import { createExchange, loadConfig } from "@msgx/runner";
import { readJsonlTopic } from "../src/embedded/jsonl-delivery-port.js";
import { afterEach, describe, expect, it } from "vitest";

const flop = (seqn: number) =>
  `<MSG><META><SNDR>AODB</SNDR><SEQN>${seqn}</SEQN><DTTM>20260305020000</DTTM><TYPE>FLOP</TYPE><STYP>ESTT</STYP></META>` +
  `<FLOP><FLID>${900000 + seqn}</FLID><ESTT>05MAR261452</ESTT></FLOP></MSG>`;

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function embeddedConfig(overrides: Record<string, string> = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), "msgx-exchange-"));
  dirs.push(dataDir);
  // Every flight kept: the fixtures' day (2026-03-05) is long past, and the daily sweep must not retire it mid-test.
  return loadConfig({ env: {}, overrides: { dataDir, "http.port": "0", "history.retentionDays": "36500", "pipeline.pollIntervalMs": "5000", ...overrides } });
}

/** Polls `probe` until it gives a value; a generous hang guard, never a timing assertion. */
async function eventually<T>(probe: () => Promise<T | undefined> | T | undefined, what: string): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("createExchange (embedded)", () => {
  it("composes every step, routes a received message to its terminal state by wake-ups, and stops once", async () => {
    const exchange = await createExchange(embeddedConfig(), { logger: silentLogger });
    expect(exchange.router.names).toEqual(expect.arrayContaining([...Object.values(PipelineStep), "history-sweep", "requests", "reliable-relay", "reliable-recovery"]));
    const url = await exchange.start();
    expect(await (await fetch(`${url}/healthz`)).text()).toBe("ok\n");
    const msgId = await exchange.receive(flop(1));
    // The poll interval is 5 s: only the wake edges (ingress → intake → pump) get it done sooner.
    const deadline = Date.now() + 4_000;
    let status: string | undefined;
    while (Date.now() < deadline) {
      status = (await exchange.parts.store.get(msgId))?.status;
      if (status !== undefined && status !== "PENDING") break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(status).toMatch(/SUCCEEDED|SKIPPED|FAILED|DEAD/);
    await Promise.all([exchange.stop(), exchange.stop()]);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });

  it("stop flushes the coalesced schd topic: a flight changed just before stop is on it once stop resolves", async () => {
    // A flush period far beyond the test: only the flush on stop can send the second version.
    const config = embeddedConfig({ "schd.flushPeriodMs": "600000" });
    // The flusher's first look at an empty outbox schedules its next run one period later; the
    // messages go in after it, so nothing but the flush on stop sends them.
    let schdLooks = 0;
    const exchange = await createExchange(config, {
      logger: silentLogger,
      decorate: (parts) => ({
        ...parts,
        outbox: new Proxy(parts.outbox, {
          get: (target, key, receiver) =>
            key === "countPending"
              ? async (t: Target) => {
                  const n = await target.countPending(t);
                  if (t === Target.SCHD) schdLooks += 1;
                  return n;
                }
              : (() => {
                  const member: unknown = Reflect.get(target, key, receiver);
                  return typeof member === "function" ? member.bind(target) : member;
                })(),
        }),
      }),
    });
    await exchange.start();
    await eventually(() => (schdLooks > 0 ? true : undefined), "the schd flusher's first run");
    const schdOf = (flid: string) => readJsonlTopic(config.dataDir, config.kafka.schdTopic).filter((e) => e.key === flid);
    const fixture = (name: string) => readFileSync(fileURLToPath(new URL(`../../core/test/fixtures/sis/${name}`, import.meta.url)), "utf8");
    const version = (e: { value: string | null }) => (JSON.parse(e.value!) as { stateVersion: number }).stateVersion;
    await exchange.receive(fixture("01-schd-dnld-3-flights.xml"));
    const gateChange = await exchange.receive(fixture("03-flop-gtdt-gate-change.xml"));
    // Processed, and its msg event delivered: its schd events wait for the next flush.
    await eventually(() => (readJsonlTopic(config.dataDir, config.kafka.msgTopic).some((e) => e.key === "900101" && version(e) === 2) ? true : undefined), "the gate change's msg event");
    expect((await exchange.parts.store.get(gateChange))?.status).toBe("SUCCEEDED");
    expect(schdOf("900101")).toEqual([]);

    await exchange.stop();
    // Coalesced per FLID: the newest state only.
    expect(schdOf("900101").map(version)).toEqual([2]);
  });

  it("closes its parts when stopped before it started", async () => {
    const config = embeddedConfig();
    const first = await createExchange(config, { logger: silentLogger });
    await first.stop();
    // The data directory lock is released: a second exchange opens the same directory.
    const second = await createExchange(config, { logger: silentLogger });
    await second.stop();
  });
});
