/**
 * The console's Compare view in chromium: two embedded runners fed the same day, the console's one
 * also an extra FLOP, and `compare.against` naming the other. The view shows exactly that flight
 * under that field, with both values, and its FLID opens the flight's lineage.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONSOLE_TOKEN, gateChromium, launchChromium, openConsole } from "./console-world.js";
import { eventually, FIXTURES, spawnRunner, stopRunner, type RunnerProcess } from "./runner-process.js";

const SUITE = "the console's Compare view in chromium (two embedded runners)";
const gate = await gateChromium(SUITE);

describe.skipIf(!gate.available)(SUITE, () => {
  const dir = mkdtempSync(join(tmpdir(), "msgx-compare-browser-"));
  let ours: RunnerProcess | undefined;
  let theirs: RunnerProcess | undefined;
  let browser: Browser | undefined;
  const send = async (r: RunnerProcess, xml: string) => {
    const res = await fetch(new URL("/cminmsgs/send", r.url), { method: "POST", headers: { "content-type": "application/xml", authorization: `Bearer ${CONSOLE_TOKEN}` }, body: xml });
    expect(res.status).toBe(200);
  };

  beforeAll(async () => {
    const [b, t] = await Promise.allSettled([launchChromium(), spawnRunner(["--data-dir", join(dir, "theirs")])]);
    if (b.status === "fulfilled") browser = b.value;
    if (t.status === "fulfilled") theirs = t.value;
    for (const r of [b, t]) if (r.status === "rejected") throw r.reason;
    ours = await spawnRunner(["--data-dir", join(dir, "ours")], { MSGX_HTTP_TOKEN: CONSOLE_TOKEN, MSGX_COMPARE_AGAINST: theirs!.url });
  });
  afterAll(async () => {
    await browser?.close();
    await stopRunner(ours, SUITE);
    await stopRunner(theirs, SUITE);
    rmSync(dir, { recursive: true, force: true });
  });

  it("runs the comparison against the configured runner, shows the planted difference grouped by field, and opens the flight's lineage from it", async ({ onTestFailed }) => {
    const day = readFileSync(join(FIXTURES, "01-schd-dnld-3-flights.xml"), "utf8");
    const extraFlop = readFileSync(join(FIXTURES, "04-flop-estt.xml"), "utf8").replace("900103", "900101").replace(/<FFID>[^<]*<\/FFID>/, "");
    await send(theirs!, day);
    await send(ours!, day);
    await send(ours!, extraFlop);
    const version = async (r: RunnerProcess, flid: string) => {
      const res = await fetch(new URL(`/admin/flights/${flid}`, r.url), { headers: { authorization: `Bearer ${CONSOLE_TOKEN}` } });
      return res.ok ? ((await res.json()) as { stateVersion: number }).stateVersion : 0;
    };
    await eventually(async () => ((await version(ours!, "900101")) === 2 ? true : undefined), 30_000, "the FLOP applied on ours");
    await eventually(async () => ((await version(theirs!, "900103")) === 1 ? true : undefined), 30_000, "the day applied on theirs");

    const page = await browser!.newPage({ viewport: { width: 1366, height: 768 } });
    const pageErrors: string[] = [];
    page.on("pageerror", (e) => pageErrors.push(e.message));
    onTestFailed(async () => console.error(`[${SUITE}] page ${page.url()}:\n${await page.locator("body").innerText().catch(String)}`));

    await openConsole(page, ours!.url, "#/compare");
    expect(await page.getByTestId("compare-against").inputValue()).toBe(theirs!.url);
    await page.getByTestId("compare-run").click();
    expect(await page.getByTestId("compare-verdict").innerText()).toMatch(/Differ: 1 flight\(s\), 1 difference\(s\)/);
    const group = page.getByTestId("compare-group-fields.ESTT");
    const text = await group.innerText();
    expect(text).toContain("900101");
    expect(text).toContain("2026-03-05T14:52");
    expect(text).toContain("(absent)");
    expect(await page.locator("[data-testid^=compare-group-]").count()).toBe(1);

    await group.getByRole("link", { name: "900101", exact: true }).click();
    await page.getByTestId("lineage-version-2").waitFor();
    expect(page.url()).toMatch(/#\/flights\/900101$/);
    expect(pageErrors).toEqual([]);
  });
});
