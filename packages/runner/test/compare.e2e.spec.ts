import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CLI, eventually, FIXTURES, post, spawnRunner, stopRunner, type RunnerProcess } from "./runner-process.js";

const SUITE = "compare.e2e";
const dir = mkdtempSync(join(tmpdir(), "msgx-compare-e2e-"));
const runners: RunnerProcess[] = [];
afterAll(async () => {
  for (const r of runners) await stopRunner(r, SUITE);
  rmSync(dir, { recursive: true, force: true });
});

/** `msgx compare …` as an operator runs it: its exit code, stdout and stderr. */
function compare(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, "compare", ...args], { encoding: "utf8", timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const flight = async (url: string, flid: string) => (await (await fetch(new URL(`/admin/flights/${flid}`, url))).json()) as { stateVersion: number; fields: Record<string, string> };

describe("msgx compare (two embedded runners fed the same day)", () => {
  it("reports exactly the flight and field of one extra FLOP (exit 1), the same from a dump file, and agreement once both have it (exit 0)", async () => {
    const [a, b] = await Promise.all([spawnRunner(["--data-dir", join(dir, "a")]), spawnRunner(["--data-dir", join(dir, "b")])]);
    runners.push(a, b);
    const day = readFileSync(join(FIXTURES, "01-schd-dnld-3-flights.xml"), "utf8");
    // The fixture's ESTT FLOP, for the DNLD's first flight and without its FFID, so it changes ESTT alone.
    const extraFlop = readFileSync(join(FIXTURES, "04-flop-estt.xml"), "utf8").replace("900103", "900101").replace(/<FFID>[^<]*<\/FFID>/, "");
    for (const r of [a, b]) expect((await post(r.url, day)).status).toBe(200);
    expect((await post(a.url, extraFlop)).status).toBe(200);
    await eventually(async () => ((await flight(a.url, "900101")).fields["ESTT"] === "2026-03-05T14:52" ? true : undefined), 30_000, "the FLOP applied on a");
    await eventually(async () => ((await flight(b.url, "900103")).stateVersion === 1 ? true : undefined), 30_000, "the day applied on b");

    const differ = compare("--url", a.url, "--against", b.url, "--json");
    expect(differ.stderr).toBe("");
    expect(differ.code).toBe(1);
    const report = JSON.parse(differ.stdout) as { agree: boolean; flights: unknown; byPath: unknown; differences: unknown[] };
    expect(report.agree).toBe(false);
    expect(report.flights).toEqual({ ours: 3, theirs: 3, both: 3, differing: 1 });
    expect(report.byPath).toEqual({ "fields.ESTT": 1 });
    expect(report.differences).toEqual([{ flid: "900101", kind: "field", path: "fields.ESTT", ours: "2026-03-05T14:52" }]);
    const text = compare("--url", a.url, "--against", b.url);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain('fields.ESTT: ours "2026-03-05T14:52", theirs (absent)');

    // b's pages, dumped, give the same report offline.
    const dump = join(dir, "b-pages.json");
    expect(compare("--url", b.url, "--dump", dump).code).toBe(0);
    const offline = compare("--url", a.url, "--against", dump, "--json");
    expect(offline.code).toBe(1);
    expect({ ...JSON.parse(offline.stdout), theirs: b.url }).toEqual(JSON.parse(differ.stdout));
    // One merged list of flights is a dump too.
    const merged = join(dir, "b-flights.json");
    writeFileSync(merged, JSON.stringify((JSON.parse(readFileSync(dump, "utf8")) as { flights: unknown[] }[]).flatMap((p) => p.flights)));
    expect({ ...JSON.parse(compare("--url", a.url, "--against", merged, "--json").stdout), theirs: b.url }).toEqual(JSON.parse(differ.stdout));
    // Ignoring the field makes them agree.
    expect(compare("--url", a.url, "--against", b.url, "--ignore", "fields.ESTT").code).toBe(0);

    expect((await post(b.url, extraFlop)).status).toBe(200);
    await eventually(async () => ((await flight(b.url, "900101")).fields["ESTT"] === "2026-03-05T14:52" ? true : undefined), 30_000, "the FLOP applied on b");
    const agree = compare("--url", a.url, "--against", b.url, "--days", "20260305");
    expect(agree.code).toBe(0);
    expect(agree.stdout).toContain("AGREE: no difference.");
    expect(agree.stdout).toContain("3 flights on both sides");
  });

  it("exits 2 on a usage error or a side that does not answer", async () => {
    const closed = "http://127.0.0.1:9"; // the discard port: nothing listens there
    const refused = compare("--url", closed, "--against", closed);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^msgx compare: GET http:\/\/127\.0\.0\.1:9\/all\/flights\?limit=1000: fetch failed/);
    expect(compare("--url", closed).code).toBe(2);
    expect(compare("--url", closed, "--against", closed, "--days", "2026-03-05").stderr).toMatch(/--days: 2026-03-05 is not yyyyMMdd/);
    expect(compare("--url", closed, "--against", closed, "--ignore", "fields.").code).toBe(2);
    expect(compare("--against", closed).code).toBe(2);
  });
});
