/**
 * `msgx request …` straight on an embedded data directory (no runner): the command registers and
 * sends through the same coordinator the runner uses; `--help` names what it does.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "commander";
import { afterAll, describe, expect, it, vi } from "vitest";
import { registerRequestCommands } from "../src/commands/request-commands.js";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** Runs `msgx <args>` in process; returns what it printed. */
async function msgx(args: readonly string[]): Promise<{ out: string; err: string }> {
  const program = new Command().name("msgx").exitOverride();
  registerRequestCommands(program);
  let out = "";
  let err = "";
  const stdout = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => ((out += String(chunk)), true));
  const stderr = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => ((err += String(chunk)), true));
  try {
    program.configureOutput({ writeOut: (s) => (out += s), writeErr: (s) => (err += s) });
    await program.parseAsync(["node", "msgx", ...args]);
  } finally {
    stdout.mockRestore();
    stderr.mockRestore();
  }
  return { out, err };
}

describe("msgx request (direct on an embedded data directory)", () => {
  it("--help lists schedule, ref, list and show", async () => {
    const help = await msgx(["request", "--help"]).catch((e: { exitCode?: number }) => e);
    expect((help as { exitCode?: number }).exitCode).toBe(0);
    const program = new Command().name("msgx");
    registerRequestCommands(program);
    const request = program.commands.find((c) => c.name() === "request")!;
    expect(request.commands.map((c) => c.name())).toEqual(["schedule", "ref", "list", "show"]);
    const schedule = request.commands[0]!.helpInformation();
    expect(schedule).toContain("--from <yyyy-MM-ddTHH:mm>");
    expect(schedule).toContain("--to <yyyy-MM-ddTHH:mm>");
    expect(schedule).toContain("--url <url>");
  });

  it("schedule, ref, list and show write and read the data directory", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "msgx-request-cli-"));
    dirs.push(dataDir);
    const rqfd = JSON.parse((await msgx(["request", "schedule", "--from", "2026-03-06T00:00", "--to", "2026-03-06T23:59", "--operator", "ops", "--data-dir", dataDir])).out) as {
      requestId: string;
      status: string;
      requestedBy: string;
    };
    expect(rqfd).toMatchObject({ status: "SENT", requestedBy: "ops" });
    const rqrd = JSON.parse((await msgx(["request", "ref", "arpt", "--data-dir", dataDir])).out) as { requestType: string; status: string };
    expect(rqrd).toMatchObject({ requestType: "RQRD/ARPT", status: "SENT" });
    const list = JSON.parse((await msgx(["request", "list", "--data-dir", dataDir])).out) as { type: string; status: string }[];
    expect(list.map((r) => `${r.type}:${r.status}`)).toEqual(["RQRD/ARPT:SENT", "RQFD:SENT"]);
    const shown = JSON.parse((await msgx(["request", "show", rqfd.requestId, "--data-dir", dataDir])).out) as { rawXml: string };
    expect(shown.rawXml).toContain("<TYPE>RQFD</TYPE>");
    await expect(msgx(["request", "list", "--status", "nope", "--data-dir", dataDir])).rejects.toThrow(/unknown status/);
  });
});
