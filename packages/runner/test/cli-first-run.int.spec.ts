/**
 * What a newcomer meets in the first ten minutes, in process on embedded data directories: a
 * `demo --url` with nobody listening, a read-only command on a mistyped `--data-dir`, and a demo
 * rerun on the same directory.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "commander";
import { isMsgxError } from "@msgx/core";
import { afterAll, describe, expect, it, vi } from "vitest";
import { registerAdminCommands } from "../src/commands/admin-commands.js";
import { demoCommand } from "../src/commands/demo-command.js";
import { registerReliableCommands } from "../src/commands/reliable-commands.js";
import { registerRequestCommands } from "../src/commands/request-commands.js";
import { registerTasksCommands } from "../src/commands/tasks-commands.js";
import { freePort } from "./free-port.js";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), "msgx-first-run-"));
  dirs.push(d);
  return d;
};

/** Runs `fn` with stdout and stderr captured; returns what it printed, or what it threw. */
async function captured(fn: () => Promise<void>): Promise<{ out: string; err: string; error?: unknown }> {
  let out = "";
  let err = "";
  const stdout = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => ((out += String(chunk)), true));
  const stderr = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => ((err += String(chunk)), true));
  try {
    await fn();
    return { out, err };
  } catch (error) {
    return { out, err, error };
  } finally {
    stdout.mockRestore();
    stderr.mockRestore();
  }
}

/** `msgx <admin command> …` in process: every command that reads or acts on existing data. */
const admin = (args: readonly string[]) =>
  captured(async () => {
    const program = new Command().name("msgx").exitOverride();
    registerAdminCommands(program);
    registerReliableCommands(program);
    registerRequestCommands(program);
    registerTasksCommands(program);
    await program.parseAsync(["node", "msgx", ...args]);
  });

const demo = { flights: "3", updates: "4", seed: "7" };

describe("msgx in the first ten minutes", () => {
  it("demo --url with no runner there names the URL and what to do, as a typed error", async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const { error } = await captured(() => demoCommand({ ...demo, dataDir: tempDir(), url }));
    expect(isMsgxError(error) && error.kind).toBe("DEPENDENCY_UNAVAILABLE");
    const message = (error as Error).message;
    expect(message).toContain(`no msgx runner answers at ${url}`);
    expect(message).toContain("msgx run");
    expect(message).toContain("drop --url");
  });

  it("demo --url with something that is not a URL is a usage error (CONFIG, exit 2)", async () => {
    const { error } = await captured(() => demoCommand({ ...demo, dataDir: tempDir(), url: "127.0.0.1:8080" }));
    expect(isMsgxError(error) && error.kind).toBe("CONFIG");
    expect((error as Error).message).toContain("--url 127.0.0.1:8080 is not a URL");
  });

  it("demo --url: an ingress that answers 4xx is reported at once, not retried", async () => {
    let posts = 0;
    const server: Server = createServer((req, res) => {
      if (req.url === "/cminmsgs/send") {
        posts++;
        res.writeHead(400).end("bad message");
        return;
      }
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ head: null, byStatus: {}, deadLetters: 0, backfillDebt: 0, delivery: {} }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const { error } = await captured(() => demoCommand({ ...demo, dataDir: tempDir(), url }));
      expect((error as Error).message).toBe("ingress answered 400: bad message");
      expect(posts).toBe(1);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  /** Every admin command, one invocation each. */
  const ADMIN_COMMANDS = [
    ["status"],
    ["dead-letters", "list"],
    ["messages", "show", "1"],
    ["snapshots", "list"],
    ["flights", "show", "X"],
    ["replay", "--class", "EXHAUSTED"],
    ["replay", "--class", "EXHAUSTED", "--dry-run"],
    ["audit", "list"],
    ["reliable", "list"],
    ["reliable", "show", "m-1"],
    ["tasks", "show", "t-1"],
    ["tasks", "list", "--overdue"],
    ["request", "list"],
  ];

  it.each(ADMIN_COMMANDS)("%s … --url with no runner there names the URL and what to do (DEPENDENCY_UNAVAILABLE, exit 1)", async (...command) => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const { out, error } = await admin([...command, "--url", url]);
    expect(isMsgxError(error) && error.kind).toBe("DEPENDENCY_UNAVAILABLE");
    const message = (error as Error).message;
    expect(message).toContain(`no msgx runner answers at ${url} (fetch failed: connect ECONNREFUSED`);
    expect(message).toContain("start one with `msgx run`");
    expect(out).toBe("");
  });

  it.each(ADMIN_COMMANDS)(
    "%s … on a data directory that does not exist refuses (CONFIG, exit 2) and creates nothing",
    async (...command) => {
      const missing = join(tempDir(), "typo");
      const { out, error } = await admin([...command, "--data-dir", missing]);
      expect(isMsgxError(error) && error.kind).toBe("CONFIG");
      expect((error as Error).message).toContain(`data directory ${missing} does not exist`);
      expect(out).toBe("");
      expect(existsSync(missing)).toBe(false);
    },
  );

  it("a demo rerun on the same data directory says its counts are totals and gives this run's share", async () => {
    const dataDir = tempDir();
    const first = await captured(() => demoCommand({ ...demo, dataDir }));
    expect(first.error).toBeUndefined();
    expect(first.out).not.toContain("already held");
    expect(first.out).not.toContain("this run");
    const sent = Number(/sent: +(\d+) messages/.exec(first.out)![1]);
    const succeeded = Number(/SUCCEEDED (\d+)/.exec(first.out)![1]);
    const msgEvents = Number(/events: +msg (\d+)/.exec(first.out)![1]);

    const second = await captured(() => demoCommand({ ...demo, dataDir }));
    expect(second.error).toBeUndefined();
    expect(second.out).toContain(`data directory ${dataDir} already held ${sent} messages; counts are totals, with this run's share beside each`);
    const [, totalSucceeded, runSucceeded] = /SUCCEEDED (\d+) \(this run (\d+)\)/.exec(second.out)!.map(Number);
    expect(totalSucceeded! - runSucceeded!).toBe(succeeded);
    const [, totalMsg, runMsg] = /events: +msg (\d+) \(this run (\d+)\)/.exec(second.out)!.map(Number);
    expect(totalMsg! - runMsg!).toBe(msgEvents);
    expect(second.out).toMatch(/dead letters \(\d+ \(this run \d+\)\)/);
  });
});
