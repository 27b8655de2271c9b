/**
 * A helper process of an e2e suite (a producer, a checker, a consumer, an owner, an executing
 * system): a Node script spawned with its stdout read as JSON lines, which is how those scripts
 * report what they did. Shared by the reliable-service and task-service suites.
 */
import { spawn, type ChildProcess } from "node:child_process";

export interface ScriptProcess {
  readonly child: ChildProcess;
  /** Every JSON line printed so far. */
  readonly lines: unknown[];
  readonly output: () => string;
  readonly exited: Promise<number | string>;
}

const alive = new Set<ChildProcess>();

/** Tracks `child` so `killAlive` can end it; a child leaves the set when it exits. */
export function killOnExit(child: ChildProcess): void {
  alive.add(child);
  child.on("exit", () => alive.delete(child));
}

/**
 * Kills every tracked child still running: after each integration suite file (kill-children.setup.ts),
 * so no runner or helper process outlives its suite, whatever happened to it (a failed start, a
 * timeout, an afterAll that never reached it).
 */
export function killAlive(): void {
  for (const c of alive) c.kill("SIGKILL");
}

/** Runs `node <path> ...args`; lines of stdout that are JSON are collected, everything is kept in `output()`. */
export function spawnScript(path: string, args: readonly string[]): ScriptProcess {
  return spawnCommand(process.execPath, [path, ...args]);
}

/** Runs any `command` the same way; with `stdin`, the test writes to `child.stdin` (a Java service's commands). */
export function spawnCommand(command: string, args: readonly string[], opts: { readonly stdin?: boolean } = {}): ScriptProcess {
  const child = spawn(command, args, { stdio: [opts.stdin ? "pipe" : "ignore", "pipe", "pipe"] });
  killOnExit(child);
  const lines: unknown[] = [];
  let out = "";
  let partial = "";
  child.stdout!.on("data", (d: Buffer) => {
    out += d.toString();
    partial += d.toString();
    const parts = partial.split("\n");
    partial = parts.pop()!;
    for (const l of parts) {
      try {
        lines.push(JSON.parse(l));
      } catch {
        // Not JSON: a banner line, kept in output().
      }
    }
  });
  child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | string>((resolve) => child.on("exit", (code, signal) => resolve(code ?? signal ?? -1)));
  return { child, lines, output: () => out, exited };
}

/** SIGTERM, then SIGKILL when the process has not exited within `graceMs`. */
export async function stopScript(c: ScriptProcess, graceMs: number): Promise<void> {
  if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill("SIGTERM");
  const code = await Promise.race([c.exited, new Promise((r) => setTimeout(r, graceMs, "timeout"))]);
  if (code === "timeout") c.child.kill("SIGKILL");
}
