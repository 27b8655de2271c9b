/**
 * The README's quick start on a fresh clone (issue 31): the checkout's files as a commit would hold
 * them (tracked and new, nothing ignored: no node_modules, no dist) copied to a new folder, the
 * README's install run as written, then `./msgx` — first unbuilt (one line saying to build, exit 2),
 * then after the build `./msgx --help` listing every command and `./msgx status --help`, and the
 * same CLI through `pnpm -s msgx`. The install prints no "Failed to create bin" (the runner's bin is
 * a committed file). Takes the install (pnpm's store warm: seconds) and one `build:run`.
 */
import { execFile, execFileSync } from "node:child_process";
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const clone = mkdtempSync(join(tmpdir(), "msgx-fresh-clone-"));
afterAll(() => rmSync(clone, { recursive: true, force: true }));

const PNPM = ["-y", "pnpm@10.34.9"];
const COMMANDS = ["run", "migrate", "status", "messages", "dead-letters", "snapshots", "replay", "audit", "flights", "reference", "reliable", "request", "tasks", "demo"];

/** Runs a command in the clone to its end: exit code and everything it printed (never throws on a non-zero exit). */
function inClone(command: string, args: readonly string[], timeoutMs = 300_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd: clone, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, NO_COLOR: "1" } }, (error, stdout, stderr) => {
      if (error && typeof error.code !== "number") reject(new Error(`${command} ${args.join(" ")}: ${error.message}\n${stdout}${stderr}`));
      else resolve({ code: error ? (error.code as number) : 0, stdout, stderr });
    });
  });
}

/** The README's quick-start command line, as written. */
function quickStart(): string {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Quick start"));
  const block = /```sh\n([^`]+?)\n```/.exec(section);
  if (!block) throw new Error("README.md has no sh block under ## Quick start");
  return block[1]!.trim();
}

beforeAll(() => {
  const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: root, encoding: "utf8" }).split("\0").filter(Boolean);
  for (const file of files) {
    const from = join(root, file);
    // A tracked file deleted in the working tree is not part of the next commit.
    let mode: number;
    try {
      mode = statSync(from).mode;
    } catch {
      continue;
    }
    mkdirSync(dirname(join(clone, file)), { recursive: true });
    cpSync(from, join(clone, file));
    chmodSync(join(clone, file), mode & 0o777);
  }
});

describe("a fresh clone, the README's way", () => {
  it("installs as the README says, says to build before ./msgx works, then runs ./msgx --help and ./msgx status --help", { timeout: 900_000 }, async () => {
    // The quick start is install, then start (build:run, then run): the test runs the install as
    // written and the build start runs first, not the long-running server.
    expect(quickStart()).toBe("npx -y pnpm@10.34.9 install && npx -y pnpm@10.34.9 start");
    expect(JSON.parse(readFileSync(join(clone, "package.json"), "utf8")).scripts.start).toMatch(/^pnpm -s build:run && /);

    const install = await inClone("npx", [...PNPM, "install", "--frozen-lockfile"]);
    expect(install.code, install.stdout + install.stderr).toBe(0);
    expect(install.stdout + install.stderr).not.toContain("Failed to create bin");

    const unbuilt = await inClone("./msgx", ["--help"]);
    expect(unbuilt.code).toBe(2);
    expect(unbuilt.stdout).toBe("");
    expect(unbuilt.stderr.trim().split("\n")).toHaveLength(1);
    expect(unbuilt.stderr).toContain("npx -y pnpm@10.34.9 build:run");

    const build = await inClone("npx", [...PNPM, "build:run"], 600_000);
    expect(build.code, build.stdout + build.stderr).toBe(0);

    const help = await inClone("./msgx", ["--help"]);
    expect(help.code, help.stderr).toBe(0);
    for (const command of COMMANDS) expect(help.stdout, command).toMatch(new RegExp(`^  ${command}\\b`, "m"));

    const status = await inClone("./msgx", ["status", "--help"]);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/^Usage: msgx status \[options\]/);
    expect(status.stdout).toContain("--url");

    const viaPnpm = await inClone("npx", [...PNPM, "-s", "msgx", "status", "--help"]);
    expect(viaPnpm.code, viaPnpm.stderr).toBe(0);
    expect(viaPnpm.stdout).toBe(status.stdout);
  });
});
