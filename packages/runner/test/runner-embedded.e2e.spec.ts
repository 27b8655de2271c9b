import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readJsonlTopic } from "../src/embedded/jsonl-delivery-port.js";
import { CLI, eventually, FIXTURES, post, spawnRunner } from "./runner-process.js";

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), "msgx-e2e-"));
  dirs.push(d);
  return d;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe("msgx run (embedded default, the built binary)", () => {
  it("applies a DNLD then a gate change, serves the flight, writes the events, stops cleanly", async () => {
    const dataDir = tempDir();
    const runner = await spawnRunner(["--data-dir", dataDir]);
    const dnld = await post(runner.url, readFileSync(join(FIXTURES, "01-schd-dnld-3-flights.xml"), "utf8"));
    expect(dnld.status).toBe(200);
    expect(dnld.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(await dnld.text()).toBe("1");
    expect(await (await post(runner.url, readFileSync(join(FIXTURES, "03-flop-gtdt-gate-change.xml"), "utf8"))).text()).toBe("2");

    const flight = await eventually(async () => {
      const res = await fetch(new URL("/admin/flights/900101", runner.url));
      const f = res.ok ? ((await res.json()) as { stateVersion: number; collections: { GTDT: { values: { GATE: string } }[] } }) : undefined;
      return f?.stateVersion === 2 ? f : undefined;
    }, 30_000, "flight 900101 at version 2");
    expect(flight.collections.GTDT).toEqual([{ key: "1", values: { GATE: "A25", PGOT: "2026-03-05T07:10", PGCT: "2026-03-05T07:45", GTYP: "D" } }]);

    const msg = await eventually(async () => {
      const r = readJsonlTopic(dataDir, "msg").filter((e) => e.key === "900101");
      return r.length === 2 ? r : undefined;
    }, 30_000, "two msg events for 900101");
    expect(msg.map((e) => JSON.parse(e.value!).stateVersion)).toEqual([1, 2]);
    expect(msg[1]!.headers["msgx-event-type"]).toBe("UPSERT");
    // One flight shape everywhere: the admin route and `msgx flights show` give the published event's value.
    const published = JSON.parse(msg[1]!.value!) as unknown;
    expect(flight).toEqual(published);
    const cliFlight = (args: string[]) => JSON.parse(execFileSync(process.execPath, [CLI, "flights", "show", "900101", ...args], { encoding: "utf8" })) as unknown;
    expect(cliFlight(["--url", runner.url])).toEqual(published);
    const schd = await eventually(async () => {
      const r = readJsonlTopic(dataDir, "schd").filter((e) => e.key === "900101");
      return r.length > 0 && JSON.parse(r.at(-1)!.value!).stateVersion === 2 ? r : undefined;
    }, 30_000, "the schd record of 900101 at version 2");
    expect(JSON.parse(schd.at(-1)!.value!).collections.GTDT[0].values.GATE).toBe("A25");

    // The DNLD's snapshot-log row, written in its run's transaction.
    const snapshots = (await (await fetch(new URL("/admin/snapshots?limit=5", runner.url))).json()) as Record<string, unknown>[];
    expect(snapshots.map(({ snapId: _id, loggedAt, ...row }) => ({ ...row, logged: typeof loggedAt === "number" }))).toEqual([
      { msgId: 1, styp: "DNLD", operationDay: "20260305", declaredRecs: 3, flights: 3, outcome: "SUCCEEDED", reason: null, logged: true },
    ]);
    expect((await fetch(new URL("/admin/snapshots?limit=0", runner.url))).status).toBe(400);
    const cliRows = (args: string[]) =>
      (JSON.parse(execFileSync(process.execPath, [CLI, "snapshots", "list", ...args], { encoding: "utf8" })) as Record<string, unknown>[]).map((r) => [r["msgId"], r["outcome"], r["flights"]]);
    expect(cliRows(["--url", runner.url])).toEqual([[1, "SUCCEEDED", 3]]);

    // Ingress refusals: wrong content type, body cap.
    const wrongType = await fetch(new URL("/cminmsgs/send", runner.url), { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(wrongType.status).toBe(415);

    runner.child.kill("SIGTERM");
    expect(await runner.exited).toBe(0);
    expect(existsSync(join(dataDir, "msgx.lock"))).toBe(false);
    // stdout is a JSON log stream (the banner went to stderr): every line parses.
    const notJson = runner.stdout().split("\n").filter((l) => l.trim() !== "" && !isJson(l));
    expect(notJson).toEqual([]);
    expect(runner.output()).toContain("msgx listening on");
    // Straight on the data directory once the runner has stopped.
    expect(cliRows(["--data-dir", dataDir, "--limit", "5"])).toEqual([[1, "SUCCEEDED", 3]]);
    expect(cliFlight(["--data-dir", dataDir])).toEqual(published);
  });

  it("refuses a second runner on the same data directory", async () => {
    const dataDir = tempDir();
    const first = await spawnRunner(["--data-dir", dataDir]);
    await expect(spawnRunner(["--data-dir", dataDir], {}, 20_000)).rejects.toThrow(/in use by process/);
    first.child.kill("SIGTERM");
    expect(await first.exited).toBe(0);
  });

  it("answers 413 over the body cap and 401 without the token", async () => {
    const dataDir = tempDir();
    const runner = await spawnRunner(["--data-dir", dataDir], { MSGX_HTTP_MAX_BODY_BYTES: "1000", MSGX_HTTP_TOKEN: "a-token-of-16-chars!" });
    const big = await fetch(new URL("/cminmsgs/send", runner.url), {
      method: "POST",
      headers: { "content-type": "application/xml", authorization: "Bearer a-token-of-16-chars!" },
      body: "x".repeat(5000),
    });
    expect(big.status).toBe(413);
    expect((await post(runner.url, "<MSG/>")).status).toBe(401);
    expect((await fetch(new URL("/admin/status", runner.url))).status).toBe(401);
    runner.child.kill("SIGTERM");
    expect(await runner.exited).toBe(0);
  });
});

function isJson(line: string): boolean {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
}
