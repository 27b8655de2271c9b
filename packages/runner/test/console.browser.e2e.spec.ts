import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { startConsoleServicesWorld, type ConsoleServicesWorld } from "./console-services-world.js";
import { CONSOLE_TOKEN, gateChromium, GROUP_SUBTYPE, HELD_SUBTYPE, launchChromium, openConsole, POISON_RUNWAY, startConsoleWorld, type ConsoleWorld } from "./console-world.js";

const SUITE = "the console in chromium (the built binary, embedded)";
const gate = await gateChromium(SUITE);

/** Lineage as the admin route gives it (api.md), the part this suite reads. */
interface Lineage {
  readonly versions: readonly {
    version: number;
    source: { msgId: number; type: string; subtype: string } | null;
    changes: readonly { field: string; before?: unknown; after?: unknown }[];
    events: readonly { eventId: number; target: string; status: string; offset: number | null; file?: string; line?: number }[];
  }[];
}

const LAPTOP = { width: 1366, height: 768 };
const PHONE = { width: 390, height: 844 };
const VIEWPORTS = [
  { name: "1366×768", viewport: LAPTOP },
  { name: "390×844", viewport: PHONE },
] as const;

/** A page at `viewport` whose errors are collected, and whose text is printed when the test fails (the reason is usually on the page). */
async function newPageAt(browser: Browser, viewport: { width: number; height: number }, onTestFailed: (fn: () => Promise<void>) => void): Promise<{ page: Page; pageErrors: string[] }> {
  const page = await browser.newPage({ viewport });
  const pageErrors: string[] = [];
  page.on("pageerror", (e) => pageErrors.push(e.message));
  onTestFailed(async () => console.error(`[${SUITE}] page ${page.url()}:\n${await page.locator("body").innerText().catch(String)}`));
  return { page, pageErrors };
}

/**
 * The console's walk-throughs (issue 31 items 11–15), once per viewport, each on a world of its own
 * (console-world.ts): a replay changes what the next walk-through would see (a replayed dead letter
 * is gone). Within one world, in order: the runway dead letters stay DEAD until the single-message
 * tests replay them (the first group test only previews); the other held subtype's two are replayed
 * as one group. The phone run ends with the checks of the phone layout itself.
 */
describe.skipIf(!gate.available)(SUITE, () => {
  let browser: Browser;
  const worlds = new Map<string, ConsoleWorld>();
  beforeAll(async () => {
    // All at once; whatever started is kept for afterAll to stop, should another fail.
    const started = await Promise.allSettled([
      launchChromium().then((b) => void (browser = b)),
      ...VIEWPORTS.map(({ name }) => startConsoleWorld({ flights: 24, updates: 120, seed: 20260305 }).then((w) => void worlds.set(name, w))),
    ]);
    for (const r of started) if (r.status === "rejected") throw r.reason;
  });
  afterAll(async () => {
    await browser?.close();
    for (const w of worlds.values()) await w.stop();
  });

  for (const { name, viewport } of VIEWPORTS) {
    describe(`at ${name}`, () => {
      let world: ConsoleWorld;
      beforeAll(() => {
        world = worlds.get(name)!;
      });

      const stateVersion = async (flid: string) => (await world.admin("GET", `/admin/flights/${flid}`)).body["stateVersion"] as number;

      /** A page at this run's viewport (see `newPageAt`). */
      const newPage = (onTestFailed: (fn: () => Promise<void>) => void) => newPageAt(browser, viewport, onTestFailed);

      /** Opens a flight's lineage from the flights view's search. */
      async function openLineage(page: Page, flid: string): Promise<void> {
        await page.getByTestId("nav-flights").click();
        await page.getByTestId("flight-search").fill(flid);
        await page.getByTestId("flight-search").press("Enter");
        await page.getByTestId(`flight-row-${flid}`).getByRole("link", { name: flid, exact: true }).click();
      }

      it("asks for the token before any view loads (no failed request behind the prompt); the sparklines carry a scale and units", async ({ onTestFailed }) => {
        const { page, pageErrors } = await newPage(onTestFailed);
        const refused: string[] = [];
        page.on("response", (r) => void (r.status() === 401 ? refused.push(new URL(r.url()).pathname) : undefined));
        await page.goto(new URL("/console#/overview", world.url).href);
        await page.getByTestId("token-input").waitFor();
        await page.getByTestId("access-locked").waitFor();
        // Only the one access probe was refused; no view asked, so no red banner sits behind the prompt.
        expect(refused).toEqual(["/admin/runners"]);
        expect(await page.locator('[role="alert"], .notice.error').count()).toBe(0);
        await page.getByTestId("token-input").fill(CONSOLE_TOKEN);
        await page.getByTestId("token-submit").click();

        const throughput = page.locator(".card", { hasText: "Throughput" });
        await throughput.locator(".spark-y span", { hasText: /\/min$/ }).first().waitFor();
        expect(await throughput.locator(".spark-x").innerText()).toMatch(/−60 min\s+now/);
        // Every card's scale is in its own unit; the gauges sampled by this runner since it started may have no minute yet.
        const scales = await page.locator(".card .spark-y span").allInnerTexts();
        for (const label of scales.filter((t) => t !== "")) expect(label).toMatch(/^([\d,]+ (ms|msgs|rows)|[\d,]+\/min|[\d.]+ s|\d+ min \d+ s|\d+ h \d+ min|\d+ d \d+ h)$/);
        expect(refused).toEqual(["/admin/runners"]);
        expect(pageErrors).toEqual([]);
        await page.close();
      });

      it("groups the dead letters by class and reason with counts, reasons in full; a group's replay is previewed as one action", async ({ onTestFailed }) => {
        const groups = ((await world.admin("GET", "/admin/dead-letters/groups")).body as { groups: { errorClass: string; reason: string; count: number; msgIds: number[] }[] }).groups;
        const index = groups.findIndex((g) => g.msgIds.includes(world.poison.msgId));
        const group = groups[index]!;
        expect(group).toMatchObject({ errorClass: "EXHAUSTED", count: 2, msgIds: [world.poison.msgId, world.stale.msgId] });
        const { page, pageErrors } = await newPage(onTestFailed);
        await openConsole(page, world.url, "#/dead");
        await page.getByTestId("dead-by-group").click();
        const row = page.getByTestId(`dead-group-${index}`);
        await row.waitFor();
        const reason = row.locator("td.reason");
        expect(await reason.innerText()).toBe(group.reason);
        // Readable in full: wrapped inside its cell, not cut with an ellipsis.
        expect(await reason.evaluate((el) => el.scrollWidth <= el.clientWidth && el.ownerDocument.defaultView.getComputedStyle(el).textOverflow !== "ellipsis")).toBe(true);
        const exhausted = groups.filter((g) => g.errorClass === "EXHAUSTED");
        expect(await page.getByTestId("dead-groups").innerText()).toContain(`EXHAUSTED ${exhausted.reduce((n, g) => n + g.count, 0)} messages, ${exhausted.length} reasons`);

        // Anywhere on the row opens the group.
        await row.locator("td.num").click();
        await page.getByTestId("preview-replay").click();
        const prediction = page.getByTestId("replay-prediction");
        await prediction.waitFor();
        expect(await prediction.innerText()).toContain("2 of 2 messages eligible");
        const previewed = await page.getByTestId("replay-diff").innerText();
        expect(previewed).toContain(`1 would be SKIPPED: stale (its DTTM is older than flight ${world.stale.flid}'s last update)`);
        expect(previewed).toContain("1 would be SUCCEEDED (applied)");
        await page.getByTestId("operator").fill("e2e operator");
        expect(await page.getByTestId("apply-replay").innerText()).toBe("Replay 2 messages");
        expect(await page.getByTestId("apply-replay").isEnabled()).toBe(true);
        // Previewed only: both stay DEAD for the single-message tests below.
        for (const id of group.msgIds) expect((await world.admin("GET", `/admin/messages/${id}`)).body["status"]).toBe("DEAD");
        expect(pageErrors).toEqual([]);
        await page.close();
      });

      it("finds the dead letter, previews its replay (diff and version guard) before applying it, and the flight's lineage gains its version", async ({ onTestFailed }) => {
        const { msgId, flid } = world.poison;
        const before = await stateVersion(flid);
        const { page, pageErrors } = await newPage(onTestFailed);

        await openConsole(page, world.url, "#/overview");
        await openLineage(page, flid);
        await page.getByTestId(`lineage-version-${before}`).waitFor();
        expect(await page.getByTestId(`lineage-version-${before + 1}`).count()).toBe(0);

        await page.getByTestId("nav-dead").click();
        const row = page.getByTestId(`dead-row-${msgId}`);
        // The whole row opens the message, not only its id's link.
        await row.locator("td.reason").click();
        await page.waitForURL(new RegExp(`#/dead/${msgId}$`));
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
        expect(await page.getByTestId("replay-prediction").innerText()).toContain("Replayed now, it would be SUCCEEDED (applied).");
        expect(await stateVersion(flid)).toBe(before);
        expect((await world.admin("GET", `/admin/messages/${msgId}`)).body["status"]).toBe("DEAD");

        await page.getByTestId("operator").fill("e2e operator");
        await page.getByTestId("apply-replay").click();
        const result = page.getByTestId("replay-result");
        await result.waitFor();
        expect(await result.innerText()).toContain(String(msgId));
        // The result box follows the message to its real end, not the PENDING the replay left it in.
        const end = page.locator('[data-testid="replay-end"][data-ended="true"]');
        await end.waitFor({ timeout: 60_000 });
        expect(await end.innerText()).toBe(`Message ${msgId} ended SUCCEEDED (applied).`);
        expect(await stateVersion(flid)).toBe(before + 1);

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

      it("previews a stale replay as SKIPPED stale — the pump's own decision — and the result shows that real end once reached", async ({ onTestFailed }) => {
        const { msgId, flid } = world.stale;
        const { page, pageErrors } = await newPage(onTestFailed);
        await openConsole(page, world.url, "#/dead");
        await page.getByTestId(`dead-row-${msgId}`).locator("td.mono").click();
        await page.waitForURL(new RegExp(`#/dead/${msgId}$`));
        await page.getByTestId("preview-replay").click();
        const prediction = page.getByTestId("replay-prediction");
        await prediction.waitFor();
        expect(await prediction.innerText()).toBe(`eligible Replayed now, it would be SKIPPED: stale (its DTTM is older than flight ${flid}'s last update).`);
        expect(await page.getByTestId("replay-diff").innerText()).toContain("Applying it now would change no flight or reference key.");
        expect((await world.admin("GET", `/admin/messages/${msgId}`)).body["status"]).toBe("DEAD");

        await page.getByTestId("operator").fill("e2e operator");
        await page.getByTestId("apply-replay").click();
        const end = page.locator('[data-testid="replay-end"][data-ended="true"]');
        await end.waitFor({ timeout: 60_000 });
        expect(await end.innerText()).toBe(`Message ${msgId} ended SKIPPED: stale (its DTTM is older than flight ${flid}'s last update).`);
        expect(await page.getByTestId("replay-result").innerText()).not.toContain("PENDING");
        expect((await world.admin("GET", `/admin/messages/${msgId}`)).body).toMatchObject({ status: "SKIPPED", reason: `stale:${flid}` });
        expect(pageErrors).toEqual([]);
        await page.close();
      });

      it("replays a whole group as one guarded, audited action; the result follows each message to its real end", async ({ onTestFailed }) => {
        const { fresh, stale, flid } = world.group;
        const groups = ((await world.admin("GET", "/admin/dead-letters/groups")).body as { groups: { msgIds: number[] }[] }).groups;
        const index = groups.findIndex((g) => g.msgIds.includes(fresh));
        expect(groups[index]!.msgIds).toEqual([fresh, stale]);
        const before = await stateVersion(flid);
        const { page, pageErrors } = await newPage(onTestFailed);
        await openConsole(page, world.url, `#/dead/groups/${index}`);
        await page.locator("#group-title", { hasText: "2 dead letters" }).waitFor();
        expect(await page.locator("article").innerText()).toContain(`unsupported:FLOP/${GROUP_SUBTYPE}`);
        await page.getByTestId("preview-replay").click();
        await page.getByTestId("replay-prediction").waitFor();
        const previewed = await page.getByTestId("replay-diff").innerText();
        expect(previewed).toContain("2 of 2 messages eligible");
        expect(previewed).toContain(`1 would be SKIPPED: stale (its DTTM is older than flight ${flid}'s last update)`);
        expect(previewed).toContain(`flight:${flid}`);
        await page.getByTestId("operator").fill("e2e group operator");
        await page.getByTestId("apply-replay").click();
        const end = page.locator('[data-testid="replay-end"][data-ended="true"]');
        await end.waitFor({ timeout: 60_000 });
        const ended = await end.innerText();
        expect(ended).toContain("2 of 2 ended.");
        expect(ended).toContain("1 SUCCEEDED (applied)");
        expect(ended).toContain(`1 SKIPPED: stale (its DTTM is older than flight ${flid}'s last update)`);
        expect(await stateVersion(flid)).toBe(before + 1);
        // One action in the audit trail, for the whole group.
        const audit = (await world.admin("GET", "/admin/audit?limit=5")).body as { entries: { operator: string; action: string; msgIds: number[] }[] };
        expect(audit.entries.filter((e) => e.operator === "e2e group operator")).toEqual([expect.objectContaining({ action: "replay", msgIds: [fresh, stale] })]);
        expect(pageErrors).toEqual([]);
        await page.close();
      });

      it("lists the recently changed flights before any search; lineage shows collection changes as row tables, absent apart from null, the JSONL file and line, and merged schd records", async ({ onTestFailed }) => {
        const { flid } = world.poison;
        const recent = ((await world.admin("GET", "/admin/flights/recent?limit=15")).body as { flights: { flid: string }[] }).flights;
        const { page, pageErrors } = await newPage(onTestFailed);
        await openConsole(page, world.url, "#/flights");
        const list = page.getByTestId("recent-flights");
        await list.waitFor();
        expect(await list.locator("tbody tr").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-testid")))).toEqual(recent.map((f) => `flight-row-${f.flid}`));
        const first = recent[0]!.flid;
        // Anywhere on the row (here its schedule time) opens the flight.
        await page.getByTestId(`flight-row-${first}`).locator("td").nth(3).click();
        await page.waitForURL(new RegExp(`#/flights/${first}$`));
        await page.locator("#flight-title", { hasText: first }).waitFor();

        const lineage = (await world.admin("GET", `/admin/flights/${flid}/lineage?limit=20`)).body as unknown as Lineage;
        await page.goto(new URL(`/console#/flights/${flid}`, world.url).href);
        const oldest = lineage.versions.at(-1)!;
        expect(oldest.version).toBe(1);
        const v1 = page.getByTestId("lineage-version-1");
        await v1.waitFor();
        // The first version's ffid: nothing before it (absent), and after it the value — null shown as null, never "cleared".
        const ffid = oldest.changes.find((c) => c.field === "ffid")!;
        const ffidRow = await v1.locator("table.diff tr", { has: page.locator("th", { hasText: /^ffid$/ }) }).innerText();
        expect(ffidRow.split(/\s+/)).toEqual(["ffid", "(absent)", "→", ffid.after === null ? "null" : String(ffid.after)]);
        // Collections as rows: each collection change is a row table, never the collection as a JSON string.
        const withCollections = lineage.versions.filter((v) => v.changes.some((c) => c.field.startsWith("collections.")));
        expect(withCollections.length).toBeGreaterThan(0);
        for (const v of withCollections) {
          const shown = page.getByTestId(`lineage-version-${v.version}`);
          for (const c of v.changes.filter((x) => x.field.startsWith("collections."))) {
            expect(await shown.getByTestId(`collection-diff-${c.field.slice("collections.".length)}`).innerText()).toMatch(/\b(added|changed|removed)\b|No row changed/);
          }
          expect(await shown.innerText()).not.toContain('[{"key"');
        }
        // Embedded: each placed event names its file and line; a SENT schd event without a placement names the version whose record carried it.
        const placed = lineage.versions.flatMap((v) => v.events).filter((e) => e.offset !== null);
        expect(placed.length).toBeGreaterThan(0);
        for (const v of lineage.versions) {
          for (const e of v.events) {
            const cell = page.getByTestId(`lineage-event-${e.eventId}`);
            if (e.offset !== null) {
              expect(e.file).toMatch(/^events\/.+\.jsonl$/);
              expect(e.line).toBe(e.offset + 1);
              expect(await cell.innerText()).toContain(`${e.file} line ${e.line}`);
            }
            const carrier = lineage.versions.filter((n) => n.version > v.version).reverse().find((n) => n.events.some((x) => x.target === e.target && x.offset !== null));
            if (e.offset === null && e.status === "SENT" && carrier) expect(await cell.getByTestId("coalesced").innerText()).toContain(`merged into version ${carrier.version}'s record`);
          }
        }
        expect(pageErrors).toEqual([]);
        await page.close();
      });

      if (viewport === PHONE) it("at phone width (390×844) tables become cards or scroll in their box: reasons and lineage readable, the page never scrolls sideways", async ({ onTestFailed }) => {
        const { page, pageErrors } = await newPage(onTestFailed);
        // A string: the root project's types have no DOM.
        const sideways = () => page.evaluate<number>("document.documentElement.scrollWidth - document.documentElement.clientWidth");
        await openConsole(page, world.url, "#/dead");
        const row = page.locator('[data-testid^="dead-row-"]').first();
        await row.waitFor();
        // A card: the reason has most of the phone's width, not a 40-pixel column.
        expect(await row.locator("td.reason").evaluate((el) => el.ownerDocument.defaultView.getComputedStyle(el).display)).toBe("grid");
        expect(await row.locator("td.reason").evaluate((el) => el.getBoundingClientRect().width)).toBeGreaterThan(300);
        expect(await sideways()).toBe(0);
        // A tap on a card shows what it opened: the stacked detail scrolls into view, not the same list.
        const id = (await row.getAttribute("data-testid"))!.slice("dead-row-".length);
        await row.locator("td.reason").click();
        await page.locator("#record-title", { hasText: `Message ${id}` }).waitFor();
        // Polled from here: the console's CSP (no eval) stops waitForFunction's in-page polling.
        const revealed = () => page.locator("#record-title").evaluate((el) => el.ownerDocument.defaultView.scrollY > 0 && el.getBoundingClientRect().top >= 0 && el.getBoundingClientRect().top < 120);
        await expect.poll(revealed, { timeout: 30_000, interval: 100 }).toBe(true);

        await page.goto(new URL(`/console#/flights/${world.poison.flid}`, world.url).href);
        await page.locator(".timeline .version").first().waitFor();
        expect(await sideways()).toBe(0);
        // No lineage column squeezed to a few characters: field names and values keep a readable width…
        const widths = (selector: string) => page.locator(selector).evaluateAll((cells) => cells.map((c) => c.getBoundingClientRect().width).filter((w) => w > 0));
        const diffCells = await widths(".timeline table.diff:not(.rows-diff) tbody tr > :not([aria-hidden])");
        expect(diffCells.length).toBeGreaterThan(0);
        expect(Math.min(...diffCells)).toBeGreaterThan(60);
        const rowValues = await widths(".timeline table.rows-diff tbody td.mono");
        expect(rowValues.length).toBeGreaterThan(0);
        expect(Math.min(...rowValues)).toBeGreaterThan(150);
        // …and a version's events are compact cards of a few lines each, not a tower of one-word lines.
        const eventRows = await page.locator('.timeline [data-testid^="lineage-event-"]').evaluateAll((rows) => rows.map((r) => r.getBoundingClientRect().height));
        expect(eventRows.length).toBeGreaterThan(0);
        expect(Math.max(...eventRows)).toBeLessThan(110);

        await page.goto(new URL("/console#/overview", world.url).href);
        await page.locator(".card").first().waitFor();
        expect(await sideways()).toBe(0);
        expect(pageErrors).toEqual([]);
        await page.close();
      });
    });
  }
});

/** A lineage as `/admin/reliable-messages/<id>/lineage` and `/admin/tasks/<id>/lineage` give it (docs/lineage.md), the part this suite reads. */
interface History {
  readonly entries: readonly { version: number; from: string | null; to: string; cause: { kind: string; caller?: { route: string } | null }; caller?: { route: string } | null }[];
}

/**
 * Issue 36 items 11 and 7 in the console: the lineage timeline of a reliable message and of a
 * task (each change's from → to, its cause and the HTTP call that made it), and the overdue tasks.
 */
describe.skipIf(!gate.available)(`${SUITE}: reliable messages and tasks`, () => {
  let browser: Browser;
  let world: ConsoleServicesWorld;
  beforeAll(async () => {
    const started = await Promise.allSettled([launchChromium().then((b) => void (browser = b)), startConsoleServicesWorld().then((w) => void (world = w))]);
    for (const r of started) if (r.status === "rejected") throw r.reason;
  });
  afterAll(async () => {
    await browser?.close();
    await world?.stop();
  });

  /** Every change of the admin route's lineage is a row of the timeline, with its from → to, its cause and its caller's route. */
  async function expectTimeline(page: Page, path: string): Promise<void> {
    const lineage = (await world.call("GET", path)).body as unknown as History;
    expect(lineage.entries.length).toBeGreaterThan(1);
    for (const e of lineage.entries) {
      const row = page.getByTestId(`history-${e.version}`);
      await row.waitFor();
      const shown = await row.innerText();
      expect(shown).toContain(`${e.from ?? "new"} → ${e.to}`);
      expect(shown).toContain(e.cause.kind);
      const caller = e.cause.caller ?? e.caller ?? null;
      if (caller !== null) expect(shown).toContain(caller.route);
    }
  }

  it("a reliable message's Lineage shows its timeline: prepared, confirmed, by which HTTP call", async ({ onTestFailed }) => {
    const { page, pageErrors } = await newPageAt(browser, LAPTOP, onTestFailed);
    await openConsole(page, world.url, "#/reliable");
    await page.getByRole("button", { name: "Sending", exact: true }).click();
    const row = page.locator("tr", { hasText: world.messageId });
    await row.getByRole("button", { name: "Lineage" }).click();
    await page.getByRole("heading", { name: `Lineage of message ${world.messageId}` }).waitFor();
    await expectTimeline(page, `/admin/reliable-messages/${world.messageId}/lineage`);
    const timeline = await page.locator("ol.timeline").innerText();
    expect(timeline).toContain("WAITING_CONFIRM → SENDING");
    expect(timeline).toContain("POST /rm/v1/messages/:id/confirm");
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it("a task whose owner called back FAILURE (its event dead): its Lineage shows the timeline to FINISHED_PENDING_CALLBACK, the feedback's HTTP call; the overdue task is listed with its reason", async ({ onTestFailed }) => {
    const { page, pageErrors } = await newPageAt(browser, LAPTOP, onTestFailed);
    await openConsole(page, world.url, "#/tasks");
    const overdue = page.locator("section", { has: page.getByRole("heading", { name: "Overdue tasks" }) }).locator("tr", { hasText: world.overdueTaskId });
    await overdue.waitFor();
    expect(await overdue.innerText()).toMatch(/DISPATCHED[\s\S]*ACS-2[\s\S]*DEADLINE/);
    // The dead events and the overdue tasks are two fetches; either may render first.
    await page.locator("tr", { hasText: world.deadTaskId }).waitFor();
    expect(await page.locator("tr", { hasText: world.deadTaskId }).count()).toBe(1);

    await page.locator("tr", { hasText: world.deadTaskId }).getByRole("button", { name: "Lineage" }).click();
    await page.getByRole("heading", { name: `Lineage of task ${world.deadTaskId}` }).waitFor();
    await expectTimeline(page, `/admin/tasks/${world.deadTaskId}/lineage`);
    const timeline = await page.locator("ol.timeline").innerText();
    expect(timeline).toContain("new → CREATED");
    expect(timeline).toContain("DISPATCHED → FINISHED_PENDING_CALLBACK");
    expect(timeline).toContain("POST /task/v1/tasks/:id/feedback");
    expect(pageErrors).toEqual([]);
    await page.close();
  });
});
