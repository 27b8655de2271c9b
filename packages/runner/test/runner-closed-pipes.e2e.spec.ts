/**
 * A runner whose stdout or stderr reader died (`msgx run | head -2`, a `| jq` or log shipper that
 * exited) still stops on SIGTERM within the drain (issue 31): the built binary, an embedded data
 * directory of its own, SIGTERM sent once it listens and its pipes are closed.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI } from "./runner-process.js";
import { killOnExit } from "./script-process.js";

/** What the issue allows from SIGTERM to exit; the drain itself is a few hundred ms. */
const EXIT_WITHIN_MS = 5_000;

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: build first (pnpm build:run)`);
});

interface Started {
  readonly child: ChildProcess;
  readonly exited: Promise<number | string>;
  /** stderr as read so far (nothing more once it is closed). */
  readonly stderr: () => string;
}

/** `msgx run` on a fresh data directory, stdout and stderr pipes; resolves once stderr says it listens. */
async function startRunner(): Promise<Started> {
  const dataDir = mkdtempSync(join(tmpdir(), "msgx-closed-pipes-"));
  dirs.push(dataDir);
  const child = spawn(process.execPath, [CLI, "run", "--http-port", "0", "--data-dir", dataDir], {
    env: { ...process.env, MSGX_LOG_LEVEL: "info" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  killOnExit(child);
  const exited = new Promise<number | string>((resolve) => child.on("exit", (code, signal) => resolve(code ?? signal ?? -1)));
  let err = "";
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  // Reading stdout as a consumer would until it goes away.
  child.stdout!.on("data", () => undefined);
  await new Promise<void>((resolve, reject) => {
    const check = () => /msgx listening on http/.test(err) && resolve();
    child.stderr!.on("data", check);
    void exited.then((code) => reject(new Error(`runner exited (${code}) before listening:\n${err}`)));
  });
  return { child, exited, stderr: () => err };
}

/** SIGTERM, then the exit code, or a failure once `EXIT_WITHIN_MS` passed without an exit (the runner is then killed). */
async function terminate(runner: Started): Promise<number | string> {
  runner.child.kill("SIGTERM");
  let guard: NodeJS.Timeout | undefined;
  const overdue = new Promise<"overdue">((resolve) => (guard = setTimeout(() => resolve("overdue"), EXIT_WITHIN_MS)));
  const outcome = await Promise.race([runner.exited, overdue]);
  clearTimeout(guard);
  if (outcome === "overdue") runner.child.kill("SIGKILL");
  return outcome;
}

describe("a runner whose log destination died", () => {
  it("stdout and stderr both closed: SIGTERM exits 0 within the drain", async () => {
    const runner = await startRunner();
    runner.child.stdout!.destroy();
    runner.child.stderr!.destroy();
    expect(await terminate(runner)).toBe(0);
  }, 180_000);

  it("stdout closed, stderr open (`| head -2`): SIGTERM exits 0 and stderr says stdout died", async () => {
    const runner = await startRunner();
    runner.child.stdout!.destroy();
    expect(await terminate(runner)).toBe(0);
    expect(runner.stderr()).toMatch(/msgx: stdout is closed \(EPIPE\): the JSON log lines are dropped/);
  }, 180_000);
});
