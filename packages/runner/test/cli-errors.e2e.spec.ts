/**
 * The built `msgx` binary's errors say what to do (issue 31, "The first hour" item 6 and defect
 * 3): a taken port, a `--url` without its scheme, a data directory a runner holds, an unknown
 * flag, how `run` takes its token, and a non-loopback listener without one. Each is a
 * configuration error, exit 2, with nothing started.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, spawnRunner, stopRunner, type RunnerProcess } from "./runner-process.js";
import { killOnExit } from "./script-process.js";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), "msgx-cli-errors-"));
  dirs.push(d);
  return d;
};

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: build first (pnpm build:run)`);
});

/** `msgx …args` to its end: exit code, stdout, stderr. */
function msgx(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | string; out: string; err: string }> {
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, MSGX_LOG_LEVEL: "warn", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  killOnExit(child);
  let out = "";
  let err = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (err += d.toString()));
  return new Promise((resolve) => child.on("close", (code, signal) => resolve({ code: code ?? signal ?? -1, out, err })));
}

describe("msgx's first-hour errors", () => {
  let taken: Server | undefined;
  afterAll(() => taken?.close());

  it("a port in use names --http-port and MSGX_HTTP_PORT, exit 2", async () => {
    taken = createServer();
    await new Promise<void>((resolve) => taken!.listen(0, "127.0.0.1", resolve));
    const { port } = taken.address() as AddressInfo;
    const { code, err } = await msgx(["run", "--data-dir", tempDir(), "--http-port", String(port)]);
    expect(code).toBe(2);
    expect(err).toContain(`port ${port} is in use`);
    expect(err).toContain("--http-port");
    expect(err).toContain("MSGX_HTTP_PORT");
    expect(err).not.toContain("msgx probes on");
  });

  it("--url without its scheme shows the expected form, exit 2", async () => {
    for (const args of [["status"], ["reliable", "list"], ["demo"]]) {
      const { code, err } = await msgx([...args, "--url", "127.0.0.1:8080", "--data-dir", tempDir()]);
      expect(code, args.join(" ")).toBe(2);
      expect(err).toContain("--url http://127.0.0.1:8080");
      expect(err).not.toContain("Invalid URL");
    }
  });

  it("a data directory held by a running runner suggests --url, exit 2", async () => {
    const dataDir = tempDir();
    // The lock of a live process: this test's own pid.
    writeFileSync(join(dataDir, "msgx.lock"), String(process.pid));
    const { code, err } = await msgx(["status", "--data-dir", dataDir]);
    expect(code).toBe(2);
    expect(err).toContain(`in use by process ${process.pid}`);
    expect(err).toMatch(/--url <the URL it printed, e\.g\. http:\/\/127\.0\.0\.1:8080>/);
  });

  it("an unknown flag gets a 'did you mean', by spelling or by the word it holds, exit 2", async () => {
    const cases: [readonly string[], string][] = [
      [["run", "--port", "8080"], "(Did you mean --http-port?)"],
      [["run", "--host", "0.0.0.0"], "(Did you mean --http-host?)"],
      [["run", "--token", "x"], "(Did you mean --token-file?)"],
      [["run", "--datadir", "x"], "(Did you mean --data-dir?)"],
      [["--http-port", "8080"], "(Did you mean msgx run --http-port or msgx demo --http-port?)"],
    ];
    for (const [args, hint] of cases) {
      const { code, err } = await msgx(args);
      expect(code, args.join(" ")).toBe(2);
      expect(err).toContain(hint);
    }
  });

  it("run --help says how to give the token: MSGX_HTTP_TOKEN or --token-file, never argv", async () => {
    const { code, out } = await msgx(["run", "--help"]);
    expect(code).toBe(0);
    expect(out).toContain("--token-file <path>");
    expect(out).toContain("MSGX_HTTP_TOKEN");
    expect(out).toMatch(/Never give a token in argv/);
  });

  it("an embedded runner on 0.0.0.0 without a token is refused, exit 2, naming the three ways out", async () => {
    const { code, err } = await msgx(["run", "--data-dir", tempDir(), "--http-port", "0", "--http-host", "0.0.0.0"]);
    expect(code).toBe(2);
    expect(err).toMatch(/http\.host 0\.0\.0\.0 is not loopback and there is no token: set http\.token \(MSGX_HTTP_TOKEN or --token-file/);
    expect(err).toContain("http.allowAnonymous=true");
    expect(err).not.toContain("msgx probes on");
  });

  it("a --token-file that cannot be read is refused, exit 2", async () => {
    const { code, err } = await msgx(["run", "--data-dir", tempDir(), "--token-file", join(tempDir(), "absent")]);
    expect(code).toBe(2);
    expect(err).toMatch(/--token-file \S+absent cannot be read \(ENOENT\)/);
  });

  describe("run --token-file", () => {
    let runner: RunnerProcess | undefined;
    afterAll(() => stopRunner(runner, "cli-errors"));

    it("guards /admin with the token the file holds", async () => {
      const dir = tempDir();
      const tokenFile = join(dir, "token");
      writeFileSync(tokenFile, "a-token-from-a-file-0123\n");
      runner = await spawnRunner(["--data-dir", join(dir, "data"), "--token-file", tokenFile], {}, 150_000);
      expect(runner.child.spawnargs.join(" ")).not.toContain("a-token-from-a-file");
      expect((await fetch(new URL("/admin/status", runner.url))).status).toBe(401);
      expect((await fetch(new URL("/admin/status", runner.url), { headers: { authorization: "Bearer a-token-from-a-file-0123" } })).status).toBe(200);
    }, 180_000);
  });
});
