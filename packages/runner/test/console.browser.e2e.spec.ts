import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { gateChromium, HELD_SUBTYPE, launchChromium, openConsole, POISON_RUNWAY, startConsoleWorld, type ConsoleWorld } from "./console-world.js";
import { eventually } from "./runner-process.js";

const SUITE = "the console in chromium (the built binary, embedded)";
const gate = await gateChromium(SUITE);

/** Lineage as the admin route gives it (api.md), the part this suite reads. */
interface Lineage {
  readonly versions: readonly { version: number; source: { msgId: number; type: string; subtype: string } | null; changes: readonly { field: string; before?: unknown; after?: unknown }[] }[];
}

describe.skipIf(!gate.available)(SUITE, () => {
  let world: ConsoleWorld;
  let browser: Browser;
  beforeAll(async () => {
    // Both at once; whichever started is kept for afterAll to stop, should the other fail.
    const [w, b] = await Promise.allSettled([startConsoleWorld({ flights: 24, updates: 120, seed: 20260305 }), launchChromium()]);
    if (w.status === "fulfilled") world = w.value;
    if (b.status === "fulfilled") browser = b.value;
    for (const r of [w, b]) if (r.status === "rejected") throw r.reason;
  });
  afterAll(async () => {
    await browser?.close();
    await world?.stop();
  });

  const stateVersion = async (flid: string) => (await world.admin("GET", `/admin/flights/${flid}`)).body["stateVersion"] as number;

  /** Opens a flight's lineage from the flights view's search. */
  async function openLineage(page: Page, flid: string): Promise<void> {
    await page.getByTestId("nav-flights").click();
    await page.getByTestId("flight-search").fill(flid);
    await page.getByTestId("flight-search").press("Enter");
    await page.getByTestId(`flight-row-${flid}`).getByRole("link", { name: flid, exact: true }).click();
  }

  it("finds the dead letter, previews its replay (diff and version guard) before applying it, and the flight's lineage gains its version", async ({ onTestFailed }) => {
    const { msgId, flid } = world.poison;
    const before = await stateVersion(flid);
    const page = await browser.newPage({ viewport: { width: 1366, height: 768 } });
    const pageErrors: string[] = [];
    page.on("pageerror", (e) => pageErrors.push(e.message));
    // What the browser showed when a step failed: the reason is usually on the page.
    onTestFailed(async () => console.error(`[${SUITE}] page ${page.url()}:\n${await page.locator("body").innerText().catch(String)}`));

    await openConsole(page, world.url, "#/overview");
    await openLineage(page, flid);
    await page.getByTestId(`lineage-version-${before}`).waitFor();
    expect(await page.getByTestId(`lineage-version-${before + 1}`).count()).toBe(0);

    await page.getByTestId("nav-dead").click();
    const row = page.getByTestId(`dead-row-${msgId}`);
    await row.getByRole("link", { name: String(msgId), exact: true }).click();
    expect(await row.innerText()).toContain("EXHAUSTED");

    await page.getByTestId("preview-replay").click();
    const diff = page.getByTestId("replay-diff");
    await diff.waitFor();
    const previewed = await diff.innerText();
    // What applying would change (the runway, on this flight) and the guard (its current version), shown before anything is applied.
    expect(previewed).toContain(HELD_SUBTYPE);
    expect(previewed).toContain(POISON_RUNWAY);
    expect(previewed).toContain(flid);
    expect(previewed).toMatch(new RegExp(`(?<!\\d)${before}\\s*→\\s*${before + 1}(?!\\d)`));
    expect(previewed).toMatch(/version guard/i);
    expect(await stateVersion(flid)).toBe(before);
    expect((await world.admin("GET", `/admin/messages/${msgId}`)).body["status"]).toBe("DEAD");

    await page.getByTestId("operator").fill("e2e operator");
    await page.getByTestId("apply-replay").click();
    const result = page.getByTestId("replay-result");
    await result.waitFor();
    expect(await result.innerText()).toContain(String(msgId));
    // The replayed message goes back through the pipeline: wait until it has made the flight's next version.
    await eventually(async () => ((await stateVersion(flid)) === before + 1 ? true : undefined), 30_000, `flight ${flid} at version ${before + 1}`);

    await openLineage(page, flid);
    const gained = page.getByTestId(`lineage-version-${before + 1}`);
    await gained.waitFor();
    const shown = await gained.innerText();
    expect(shown).toContain(String(msgId));
    expect(shown).toContain(HELD_SUBTYPE);
    expect(shown).toContain(POISON_RUNWAY);

    const lineage = (await world.admin("GET", `/admin/flights/${flid}/lineage?limit=2`)).body as unknown as Lineage;
    expect(lineage.versions[0]).toMatchObject({ version: before + 1, source: { msgId, type: "FLOP", subtype: HELD_SUBTYPE } });
    expect(lineage.versions[0]!.changes).toContainEqual(expect.objectContaining({ field: expect.stringMatching(new RegExp(`(^|\\.)${HELD_SUBTYPE}$`)), after: POISON_RUNWAY }));
    const audit = (await world.admin("GET", "/admin/audit?limit=5")).body as { entries: { operator: string; msgIds: number[] }[] };
    expect(audit.entries).toContainEqual(expect.objectContaining({ operator: "e2e operator", msgIds: [msgId] }));
    expect(pageErrors).toEqual([]);
    await page.close();
  });
});
