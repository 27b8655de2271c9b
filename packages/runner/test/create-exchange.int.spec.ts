import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PipelineStep } from "@msgx/core/testing";
import { silentLogger } from "@msgx/core";
import { createExchange, loadConfig } from "@msgx/runner";
import { afterEach, describe, expect, it } from "vitest";

const flop = (seqn: number) =>
  `<MSG><META><SNDR>AODB</SNDR><SEQN>${seqn}</SEQN><DTTM>20260305020000</DTTM><TYPE>FLOP</TYPE><STYP>ESTT</STYP></META>` +
  `<FLOP><FLID>${900000 + seqn}</FLID><ESTT>05MAR261452</ESTT></FLOP></MSG>`;

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function embeddedConfig() {
  const dataDir = mkdtempSync(join(tmpdir(), "msgx-exchange-"));
  dirs.push(dataDir);
  return loadConfig({ env: {}, overrides: { dataDir, "http.port": "0", "pipeline.pollIntervalMs": "5000" } });
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

  it("closes its parts when stopped before it started", async () => {
    const config = embeddedConfig();
    const first = await createExchange(config, { logger: silentLogger });
    await first.stop();
    // The data directory lock is released: a second exchange opens the same directory.
    const second = await createExchange(config, { logger: silentLogger });
    await second.stop();
  });
});
