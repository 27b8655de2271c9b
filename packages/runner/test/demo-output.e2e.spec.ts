/**
 * `./msgx demo` on the terminal (issue 31): the progress bar and the summary only — the runner's
 * JSON log lines (a malformed message's "message dead" among them) go to `<data-dir>/demo.log`,
 * which the summary names, or to stderr with `--verbose`.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_LOG } from "../src/commands/demo-command.js";
import { airportDay } from "../src/demo/airport-day.js";
import { CLI } from "./runner-process.js";

const LAUNCHER = fileURLToPath(new URL("../../../msgx", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "msgx-demo-output-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A small day with at least one malformed message, so the runner has an error to log. */
const FLIGHTS = 4;
const UPDATES = 60;
const seed = Array.from({ length: 200 }, (_, i) => i + 1).find((s) => airportDay({ flights: FLIGHTS, updates: UPDATES, seed: s }).some((m) => m.kind === "malformed"))!;

const demo = async (dataDir: string, ...extra: string[]) => {
  const { stdout, stderr } = await promisify(execFile)(LAUNCHER, ["demo", "--data-dir", dataDir, "--flights", `${FLIGHTS}`, "--updates", `${UPDATES}`, "--seed", `${seed}`, ...extra], {
    timeout: 180_000,
    env: { ...process.env, MSGX_LOG_LEVEL: "info" },
  });
  return { stdout, stderr };
};
const jsonLines = (text: string) => text.split(/[\r\n]/).filter((l) => l.trimStart().startsWith("{"));

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: build first (pnpm test builds)`);
});

describe("./msgx demo on the terminal", () => {
  it("prints the progress and the summary, and no JSON log line: those go to <data-dir>/demo.log", async () => {
    const dataDir = join(dir, "quiet");
    const { stdout, stderr } = await demo(dataDir);
    expect(stdout).toContain("msgx demo — one airport day");
    expect(stdout).toMatch(/DEAD [1-9]/);
    expect(stderr).toContain("posting [");
    expect(jsonLines(stdout)).toEqual([]);
    expect(jsonLines(stderr)).toEqual([]);
    const log = join(dataDir, DEMO_LOG);
    expect(stdout).toContain(`runner log:  ${log}`);
    const lines = readFileSync(log, "utf8").trim().split("\n").map((l) => JSON.parse(l) as { msg: string });
    expect(lines.map((l) => l.msg)).toContain("message dead");
  });

  it("--verbose prints the runner's log lines on stderr instead, and writes no log file", async () => {
    const dataDir = join(dir, "verbose");
    const { stdout, stderr } = await demo(dataDir, "--verbose");
    expect(jsonLines(stdout)).toEqual([]);
    expect(jsonLines(stderr).map((l) => (JSON.parse(l) as { msg: string }).msg)).toContain("message dead");
    expect(stdout).not.toContain("runner log:");
    expect(existsSync(join(dataDir, DEMO_LOG))).toBe(false);
  });
});
