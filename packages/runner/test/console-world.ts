/**
 * The world of the console's browser test and of `scripts/console-screenshots`: an embedded runner
 * (PGlite, JSONL delivery) behind a bearer token that has processed a generated airport day with
 * dead letters a replay can apply (and stale ones it will skip), and Debian's chromium driven by
 * playwright-core.
 *
 * The dead letters are honest, not a test-only path: the first runner is configured as an airport
 * that has not enabled runway and maximum-passenger updates (`types.policy`
 * `FLOP/RUNW=unsupported,FLOP/MAXP=unsupported`, a documented setting), so the FLOP/RUNW posted in
 * the middle of the day, and the FLOP/RUNW and FLOP/MAXP updates posted after it, go
 * FAILED(UNSUPPORTED) under the short budget, then DEAD(EXHAUSTED). The operator then enables the
 * subtypes (the runner restarts on the same data directory with the default policy) and can review
 * and replay the messages from the console.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gateService, type ServiceGate } from "@msgx/core/testing";
import { chromium, type Browser, type Page } from "playwright-core";
import { airportDay } from "../src/demo/airport-day.js";
import { el, leaf, sisMessage } from "../src/demo/sis-layout.js";
import { callRunner } from "./embedded-http.js";
import { eventually, spawnRunner, stopRunner, type RunnerProcess } from "./runner-process.js";

/**
 * Where Debian's package puts the browser (`apt-get install chromium`; `.ci/run` installs it when
 * missing); `MSGX_TEST_CHROMIUM` names another build of chromium on a machine that has one elsewhere.
 */
export const CHROMIUM = process.env["MSGX_TEST_CHROMIUM"] || "/usr/bin/chromium";
/** The runner's bearer token in this world (16+ characters, as the runner requires). */
export const CONSOLE_TOKEN = "console-world-token-0001";
/** The subtype the first runner does not process yet: the day's dead letter is the one message of it. */
export const HELD_SUBTYPE = "RUNW";
/** The runway the dead letter sets on its flight once replayed. */
export const POISON_RUNWAY = "01L";
/**
 * A second subtype held back the same way (the day has none of it either): its two dead letters,
 * one fresh and one stale, are a dead-letter group of their own, replayed as one action.
 */
export const GROUP_SUBTYPE = "MAXP";

/** A day's size: flights in the snapshot, FLOP updates after it, the generator's seed. */
export interface DaySize {
  readonly flights: number;
  readonly updates: number;
  readonly seed: number;
}

export interface ConsoleWorldOptions extends DaySize {
  /** More settings (`MSGX_*`) of the runner the console talks to, the one started after the day. */
  readonly env?: NodeJS.ProcessEnv;
}

export interface ConsoleWorld {
  /** The running runner's base URL (the console is at `/console`). */
  readonly url: string;
  readonly dataDir: string;
  /** The dead letter: its mailbox id and the flight it updates. */
  readonly poison: { readonly msgId: number; readonly flid: string };
  /**
   * A second dead letter of the held subtype, stamped the day before (older than every update of
   * its flight): replayed, the pump skips it as stale (`SKIPPED stale:<flid>`).
   */
  readonly stale: { readonly msgId: number; readonly flid: string };
  /** The {@link GROUP_SUBTYPE} dead letters: `fresh` applies when replayed, `stale` is skipped. */
  readonly group: { readonly fresh: number; readonly stale: number; readonly flid: string };
  /** An admin call with the world's token. */
  readonly admin: (method: string, path: string, body?: unknown) => Promise<{ status: number; body: Record<string, any> }>;
  /** Stops the runner and removes the data directory. */
  readonly stop: () => Promise<void>;
}

/** Gates a suite on the browser: NOT RUN with the reason when chromium is missing, a failure under MSGX_REQUIRE_SERVICES=1. */
export function gateChromium(suite: string): Promise<ServiceGate> {
  return gateService("chromium", suite, async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing (apt-get install -y --no-install-recommends chromium)`);
  });
}

/** Headless chromium with the flags of STACK.md (no sandbox as root, nothing fetched in the background); a fresh profile per launch. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}

/** Opens the console at `view` (a hash route such as `#/overview`) and answers its token prompt. */
export async function openConsole(page: Page, url: string, view = "#/overview"): Promise<void> {
  await page.goto(new URL(`/console${view}`, url).href);
  await page.getByTestId("token-input").fill(CONSOLE_TOKEN);
  await page.getByTestId("token-submit").click();
}

/**
 * Starts the world: a first runner that holds runway updates back, the day posted through the
 * ingress with the FLOP/RUNW in its middle, everything processed and delivered (the RUNW DEAD),
 * then the runner restarted on the same data directory with runway updates enabled.
 */
export async function startConsoleWorld(options: ConsoleWorldOptions): Promise<ConsoleWorld> {
  const { env: more, ...size } = options;
  const dataDir = mkdtempSync(join(tmpdir(), "msgx-console-"));
  const env = { MSGX_HTTP_TOKEN: CONSOLE_TOKEN };
  let runner: RunnerProcess | undefined;
  try {
    runner = await spawnRunner(["--data-dir", dataDir], { ...env, MSGX_TYPES_POLICY: `FLOP/${HELD_SUBTYPE}=unsupported,FLOP/${GROUP_SUBTYPE}=unsupported` });
    const day = airportDay(size);
    const flid = lastingFlight(day.map((m) => m.xml), size.flights);
    const poison = runwayUpdate(flid, RUNWAY_SEQN, END_OF_DAY);
    const half = Math.floor(day.length / 2);
    let msgId = 0;
    for (const [i, xml] of [...day.slice(0, half).map((m) => m.xml), poison, ...day.slice(half).map((m) => m.xml)].entries()) {
      const id = await ingress(runner.url, xml);
      if (i === half) msgId = id;
    }
    const staleMsgId = await ingress(runner.url, runwayUpdate(flid, RUNWAY_SEQN + 1, DAY_BEFORE));
    const groupFlid = lastingFlight(day.map((m) => m.xml), size.flights, flid);
    const group = {
      fresh: await ingress(runner.url, heldUpdate(GROUP_SUBTYPE, "320", groupFlid, RUNWAY_SEQN + 2, END_OF_DAY)),
      stale: await ingress(runner.url, heldUpdate(GROUP_SUBTYPE, "320", groupFlid, RUNWAY_SEQN + 3, DAY_BEFORE)),
      flid: groupFlid,
    };
    const first = runner;
    const admin = (url: string) => (method: string, path: string, body?: unknown) => callRunner(url, method, path, body, CONSOLE_TOKEN);
    for (const id of [msgId, staleMsgId, group.fresh, group.stale]) {
      await eventually(async () => {
        const r = await admin(first.url)("GET", `/admin/messages/${id}`);
        return r.body["status"] === "DEAD" ? r : undefined;
      }, 60_000, `message ${id} (a held FLOP subtype) DEAD`);
    }
    await quiet(admin(first.url));
    await stopRunner(runner, "console world (runway updates held)");
    runner = await spawnRunner(["--data-dir", dataDir], { ...env, ...more });
    const last = runner;
    return {
      url: last.url,
      dataDir,
      poison: { msgId, flid },
      stale: { msgId: staleMsgId, flid },
      group,
      admin: admin(last.url),
      stop: async () => {
        await stopRunner(last, "console world");
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    runner?.child.kill("SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
    throw e;
  }
}

/** Posts one message through the ingress; its answer is the mailbox id. */
async function ingress(url: string, xml: string): Promise<number> {
  const res = await fetch(new URL("/cminmsgs/send", url), {
    method: "POST",
    headers: { "content-type": "application/xml", authorization: `Bearer ${CONSOLE_TOKEN}` },
    body: xml,
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`ingress answered ${res.status}: ${text}`);
  return Number(text);
}

/** Waits until nothing is at the head, owed to the mailbox or pending delivery. */
async function quiet(admin: ConsoleWorld["admin"]): Promise<void> {
  await eventually(async () => {
    const s = (await admin("GET", "/admin/status")).body as { head: unknown; backfillDebt: number; delivery: Record<string, { pending: number }> };
    return s.head === null && s.backfillDebt === 0 && Object.values(s.delivery).every((d) => d.pending === 0) ? s : undefined;
  }, 60_000, "the runner quiet");
}

/** The first flight of the snapshot (but `besides`) that no FLOP/FDEL of the day deletes, so a late update still applies to it. */
function lastingFlight(day: readonly string[], flights: number, besides?: string): string {
  const deleted = new Set(day.filter((xml) => /<STYP>FDEL<\/STYP>/.test(xml)).map((xml) => /<FLID>(\d+)<\/FLID>/.exec(xml)![1]!));
  for (let i = 0; i < flights; i++) {
    const flid = String(900_001 + i);
    if (!deleted.has(flid) && flid !== besides) return flid;
  }
  throw new Error("every flight of the day is deleted");
}

/** SEQNs the generator never uses: the dead letter's, and the stale one's after it. */
const RUNWAY_SEQN = 999_001;
/** After every other message of the day: a replay of the dead letter is not stale. */
const END_OF_DAY = "20260305235500";
/** Before every message of the day: a replay of the stale dead letter is. */
const DAY_BEFORE = "20260304120000";

/** A FLOP/RUNW for `flid` setting the runway to {@link POISON_RUNWAY}, stamped `dttm`. */
function runwayUpdate(flid: string, seqn: number, dttm: string): string {
  return heldUpdate(HELD_SUBTYPE, POISON_RUNWAY, flid, seqn, dttm);
}

/** A FLOP of subtype `styp` setting that field of `flid` to `value`, stamped `dttm`. */
function heldUpdate(styp: string, value: string, flid: string, seqn: number, dttm: string): string {
  return sisMessage({ seqn, dttm, type: "FLOP", styp }, [el("FLOP", {}, [leaf("FLID", flid), leaf(styp, value)])]);
}
