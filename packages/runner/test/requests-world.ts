import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "@msgx/core";
import type { AppParts } from "../src/app/app-parts.js";
import { buildParts } from "../src/app/build-parts.js";
import { startPipeline, type RunningApp } from "../src/app/pipeline-app.js";
import { epochMsToDttm } from "../../core/src/requests/dttm-instant.js";
import { loadConfig } from "../src/config/load-config.js";

/** A runner started in this process (embedded PGlite state; the mailbox as `overrides` say). */
export interface InProcessRunner {
  readonly app: RunningApp;
  readonly parts: AppParts;
  readonly url: string;
  /** The embedded data directory (events/<topic>.jsonl for delivered records). */
  readonly dataDir: string;
  stop(): Promise<void>;
}

export async function startInProcess(overrides: Record<string, string> = {}): Promise<InProcessRunner> {
  const dataDir = mkdtempSync(join(tmpdir(), "msgx-requests-"));
  const config = loadConfig({
    env: {},
    overrides: { dataDir, "http.port": "0", "pipeline.pollIntervalMs": "100", "requests.pollMs": "100", "pipeline.gapGraceMs": "500", ...overrides },
  });
  const parts = await buildParts(config, silentLogger);
  const app = await startPipeline(parts, config, silentLogger);
  return {
    app,
    parts,
    url: app.url,
    dataDir,
    stop: async () => {
      await app.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The airport-local DTTM (+08:00) of a reply the upstream writes now. Rounded up to the next
 * second: DTTM has whole seconds, and a reply stamped in the second the request was written, but
 * shown before it, is refused (never taken as younger than it can be shown to be).
 */
export const replyDttm = (at = Date.now()): string => epochMsToDttm(Math.ceil((at + 1) / 1000) * 1000, 480);

/** A `SCHD/RESP` of one flight. */
export const schdResp = (seqn: number, dttm: string, flid: string, sodt: string): string =>
  `<MSG><META><SNDR>AODB</SNDR><SEQN>${seqn}</SEQN><DTTM>${dttm}</DTTM><TYPE>SCHD</TYPE><STYP>RESP</STYP></META>` +
  `<SCHD><RECS>1</RECS><FLTR><FLID>${flid}</FLID><ALCD>CZ</ALCD><FLNO>CZ3102</FLNO><MVIN>A</MVIN><SODT>${sodt}</SODT><FLTY>W</FLTY><FLIN>D</FLIN><ACFT>333</ACFT></FLTR></SCHD></MSG>`;

/** A reference `ARPT/RESP` of two airports, in the upstream layout (RECS under MSG, records named ARPT). */
export const arptResp = (seqn: number, dttm: string): string =>
  `<MSG><META><SNDR>AODB</SNDR><SEQN>${seqn}</SEQN><DTTM>${dttm}</DTTM><TYPE>ARPT</TYPE><STYP>RESP</STYP></META>` +
  `<RECS>2</RECS><ARPT><ITCD>PEK</ITCD><ANAM>Beijing Capital</ANAM></ARPT><ARPT><ITCD>CAN</ITCD><ANAM></ANAM></ARPT></MSG>`;

/** Polls until `probe` gives a value. */
export async function eventually<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
