import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger, type ProcRecord } from "@msgx/core";
import { createExchange, loadConfig } from "@msgx/runner";
import { afterEach, describe, expect, it, vi } from "vitest";

const meta = (seqn: number, type: string, styp: string) =>
  `<META><SNDR>AODB</SNDR><SEQN>${seqn}</SEQN><DTTM>20260305020000</DTTM><TYPE>${type}</TYPE><STYP>${styp}</STYP></META>`;
const DNLD =
  `<MSG>${meta(1, "SCHD", "DNLD")}<SCHD><RECS>1</RECS><FLTR><FLID>900001</FLID><ALCD>LH</ALCD><FLNO>LH1000</FLNO><MVIN>A</MVIN>` +
  `<SODT>05MAR261000</SODT><FLTY>W</FLTY><FLIN>D</FLIN><ACFT>320</ACFT></FLTR></SCHD></MSG>`;
const GATES = `<MSG>${meta(2, "FLOP", "GTDT")}<FLOP><FLID>900001</FLID>${Array.from({ length: 60 }, (_, i) => `<GTDT GTNO="${i + 1}"><GATE>A${i + 1}</GATE></GTDT>`).join("")}</FLOP></MSG>`;
const ESTT = `<MSG>${meta(3, "FLOP", "ESTT")}<FLOP><FLID>900001</FLID><ESTT>05MAR261015</ESTT></FLOP></MSG>`;

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("kafka.maxRecordBytes reaches the pump", () => {
  it("a message whose event is over the configured limit ends DEAD(PROTOCOL) in the embedded runner; the flight's next message applies", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "msgx-publishable-"));
    dirs.push(dataDir);
    // Every flight kept: the fixtures' day (2026-03-05) is long past, and the daily sweep must not retire it mid-test.
    const config = loadConfig({ env: { MSGX_KAFKA_MAX_RECORD_BYTES: "1500" }, overrides: { dataDir, "http.port": "0", "history.retentionDays": "36500" } });
    expect(config.kafka.maxRecordBytes).toBe(1_500);
    const exchange = await createExchange(config, { logger: silentLogger });
    try {
      const url = await exchange.start();
      const ids: number[] = [];
      for (const body of [DNLD, GATES, ESTT]) {
        const res = await fetch(`${url}/cminmsgs/send`, { method: "POST", headers: { "content-type": "application/xml" }, body });
        expect(res.status).toBe(200);
        ids.push(Number(await res.text()));
      }
      const records = await vi.waitFor(
        async () => {
          const all: (ProcRecord | undefined)[] = await Promise.all(ids.map((id) => exchange.parts.store.get(id)));
          if (!all.every((r) => r !== undefined && r.status !== "PENDING" && r.status !== "FAILED")) throw new Error("not all terminal yet");
          return all;
        },
        { timeout: 8_000, interval: 20 },
      );
      expect(records.map((r) => [r?.status, r?.errorClass])).toEqual([
        ["SUCCEEDED", null],
        ["DEAD", "PROTOCOL"],
        ["SUCCEEDED", null],
      ]);
      expect(records[1]?.reason).toMatch(/^unpublishable: event KAFKA:msg key 900001 would be \d+ bytes, over the broker limit of 1500 bytes$/);
    } finally {
      await exchange.stop();
    }
  });

  it("defaults to 1,000,000 bytes; 0 turns the check off; a negative limit is refused", () => {
    expect(loadConfig({ env: {} }).kafka.maxRecordBytes).toBe(1_000_000);
    expect(loadConfig({ env: { MSGX_KAFKA_MAX_RECORD_BYTES: "0" } }).kafka.maxRecordBytes).toBe(0);
    expect(() => loadConfig({ env: { MSGX_KAFKA_MAX_RECORD_BYTES: "-1" } })).toThrow(/kafka\.maxRecordBytes/);
  });
});
