/**
 * The screenshots of docs/console.md, taken by `scripts/console-screenshots` (which loads this file
 * through Vite's module runner, so it shares the browser test's world as TypeScript): each view of
 * the console at 1366×768 on a demo day with dead letters of two held-back FLOP subtypes, the overview again at 768×1024 (a
 * tablet) and the lists and lineage at 390×844 (a phone), written to docs/console/*.png; then the marked screenshots section of docs/console.md is
 * written again from the list of shots (the rest of that file is not touched).
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { launchChromium, openConsole, startConsoleWorld, type ConsoleWorld } from "./console-world.js";
import { eventually } from "./runner-process.js";

/** One screenshot: its file under docs/console/, the viewport, and what the reader sees in it. */
export interface Shot {
  readonly file: string;
  readonly title: string;
  readonly caption: string;
  readonly width: number;
  readonly height: number;
  readonly bytes: number;
}

const LAPTOP = { width: 1366, height: 768 };
const TABLET = { width: 768, height: 1024 };
const PHONE = { width: 390, height: 844 };
export const SECTION_START = "<!-- console-screenshots:start — written by scripts/console-screenshots; edit that script, not this section -->";
export const SECTION_END = "<!-- console-screenshots:end -->";

/** One view to photograph: how to get there from a signed-in page, and what the picture shows. */
interface View {
  readonly file: string;
  readonly title: string;
  readonly caption: string;
  readonly viewport: { readonly width: number; readonly height: number };
  readonly show: (page: Page, world: ConsoleWorld) => Promise<void>;
}

const nav = (page: Page, view: string) => page.getByTestId(`nav-${view}`).click();

/** The views in the order docs/console.md shows them. */
const VIEWS: readonly View[] = [
  {
    file: "overview.png",
    title: "Overview",
    caption: "Head age, backlog by status, throughput, delivery per target, backfill debt and the runners, refreshed every 5 s.",
    viewport: LAPTOP,
    show: (page) => nav(page, "overview"),
  },
  {
    file: "dead-letter-groups.png",
    title: "Dead letters — by class and reason",
    caption: "The dead letters grouped by error class, then by reason, with counts; one group previewed as one replay: how many are eligible and how each would end — the pump's own decision, run without writing.",
    viewport: LAPTOP,
    show: async (page) => {
      await nav(page, "dead");
      await page.getByTestId("dead-by-group").click();
      await page.getByTestId("dead-group-0").click();
      await page.getByTestId("preview-replay").click();
      await page.getByTestId("replay-prediction").waitFor();
    },
  },
  {
    file: "dead-letters.png",
    title: "Dead letters — replay preview",
    caption: "The dead letters, and the dead FLOP/RUNW (runway updates were not enabled when it came) with its error history and the replay preview: the field diff and the version guard, shown before anything is applied.",
    viewport: LAPTOP,
    show: async (page, world) => {
      await nav(page, "dead");
      const { msgId } = world.poison;
      await page.getByTestId(`dead-row-${msgId}`).getByRole("link", { name: String(msgId), exact: true }).click();
      await page.getByTestId("preview-replay").click();
      await page.getByTestId("replay-diff").waitFor();
      await page.getByTestId("operator").fill("duty manager");
      await page.getByTestId("replay-diff").scrollIntoViewIfNeeded();
    },
  },
  {
    file: "replay-result.png",
    title: "Dead letters — replayed",
    caption: "The replay sent under the operator's name with the preview's version guard, and the message's raw XML as the mailbox holds it.",
    viewport: LAPTOP,
    show: async (page, world) => {
      await page.getByTestId("apply-replay").click();
      await page.locator('[data-testid="replay-end"][data-ended="true"]').waitFor({ timeout: 60_000 });
      await page.getByTestId("replay-result").scrollIntoViewIfNeeded();
    },
  },
  {
    file: "replay-stale.png",
    title: "Dead letters — a replay that will be skipped",
    caption: "A runway update stamped the day before: the preview predicts SKIPPED stale (its DTTM is older than the flight's last update), and once replayed the result shows the message's real end, not PENDING.",
    viewport: LAPTOP,
    show: async (page, world) => {
      const { msgId } = world.stale;
      await page.getByTestId("dead-by-message").click();
      await page.getByTestId(`dead-row-${msgId}`).locator("td.reason").click();
      await page.getByTestId("preview-replay").click();
      await page.getByTestId("replay-prediction").waitFor();
      await page.getByTestId("apply-replay").click();
      await page.locator('[data-testid="replay-end"][data-ended="true"]').waitFor({ timeout: 60_000 });
      await page.getByTestId("replay-result").scrollIntoViewIfNeeded();
    },
  },
  {
    file: "flights-recent.png",
    title: "Flights — recently changed",
    caption: "Before any search, the flights changed last, newest first; a click anywhere on a row opens the flight.",
    viewport: LAPTOP,
    show: async (page) => {
      await nav(page, "flights");
      await page.getByTestId("recent-flights").waitFor();
    },
  },
  {
    file: "flights.png",
    title: "Flights — lineage",
    caption: "A flight found by its FLID: its current state and lineage, newest first — the replayed runway update on top, each version with its source message, field changes (a collection's as rows added, removed, changed) and events with the JSONL file and line they were published at.",
    viewport: LAPTOP,
    show: async (page, world) => {
      const { flid } = world.poison;
      const { stateVersion } = (await world.admin("GET", `/admin/flights/${flid}`)).body as { stateVersion: number };
      await nav(page, "flights");
      await page.getByTestId("flight-search").fill(flid);
      await page.getByTestId("flight-search").press("Enter");
      await page.getByTestId(`flight-row-${flid}`).getByRole("link", { name: flid, exact: true }).click();
      await page.getByTestId(`lineage-version-${stateVersion}`).waitFor();
    },
  },
  {
    file: "reference.png",
    title: "Reference data",
    caption: "The reference types the day downloaded; the airlines' entries, and one entry with its lineage.",
    viewport: LAPTOP,
    show: async (page) => {
      await nav(page, "reference");
      await page.getByRole("link", { name: /^AIRL\b/ }).click();
      await page.getByRole("link", { name: "CA", exact: true }).click();
    },
  },
  { file: "requests.png", title: "Requests", caption: "Outbound schedule and reference requests, open, done or expired, and the form that asks for a schedule range.", viewport: LAPTOP, show: (page) => nav(page, "requests") },
  { file: "reliable.png", title: "Reliable messages", caption: "The hosted reliable-message queues — waiting for confirmation, sending and dead, apart — and the dead messages with their resend.", viewport: LAPTOP, show: (page) => nav(page, "reliable") },
  { file: "tasks.png", title: "Task events", caption: "Dead task events and their replay (the task service is off by default: the view says so).", viewport: LAPTOP, show: (page) => nav(page, "tasks") },
  { file: "overview-tablet.png", title: "Overview on a tablet", caption: "The overview at 768×1024: the cards reflow, the page never scrolls sideways.", viewport: TABLET, show: (page) => nav(page, "overview") },
  { file: "overview-phone.png", title: "Overview on a phone", caption: "The overview at 390×844: two cards a row, each sparkline with its scale.", viewport: PHONE, show: (page) => nav(page, "overview") },
  {
    file: "dead-letters-phone.png",
    title: "Dead letters on a phone",
    caption: "The dead letters at 390×844: one card per message, the reason wrapped in full.",
    viewport: PHONE,
    show: async (page) => {
      await nav(page, "dead");
      await page.getByTestId("dead-by-message").click();
      await page.locator('[data-testid^="dead-row-"]').first().waitFor();
    },
  },
  {
    file: "lineage-phone.png",
    title: "Lineage on a phone",
    caption: "A flight's lineage at 390×844: field changes in readable columns, collection rows, and each version's events as compact cards.",
    viewport: PHONE,
    show: async (page, world) => {
      await page.goto(new URL(`/console#/flights/${world.poison.flid}`, world.url).href);
      await page.locator(".timeline .version").first().scrollIntoViewIfNeeded();
      await page.locator(".timeline .version").nth(1).scrollIntoViewIfNeeded();
    },
  },
];

/**
 * Takes every shot into `<repo>/docs/console/` and rewrites the screenshots section of
 * `<repo>/docs/console.md`. Returns the shots taken.
 */
export async function takeConsoleScreenshots(repo: string): Promise<Shot[]> {
  const outDir = join(repo, "docs", "console");
  mkdirSync(outDir, { recursive: true });
  const browser = await launchChromium();
  const world = await startConsoleWorld({ flights: 80, updates: 500, seed: 20260305, env: RELIABLE_QUICKLY }).catch(async (e: unknown) => {
    await browser.close();
    throw e;
  });
  const shots: Shot[] = [];
  try {
    await world.admin("POST", "/admin/requests/schedule", { from: "2026-03-06T00:00", to: "2026-03-06T23:59", operator: "duty manager" });
    await reliableTraffic(world);
    const page = await browser.newPage({ viewport: LAPTOP, deviceScaleFactor: 1 });
    const inFlight = requestsInFlight(page);
    await openConsole(page, world.url, "#/overview");
    for (const view of VIEWS) {
      await page.setViewportSize(view.viewport);
      await view.show(page, world);
      await settle(page, inFlight);
      const path = join(outDir, view.file);
      await page.screenshot({ path, fullPage: false });
      shots.push({ file: view.file, title: view.title, caption: view.caption, ...view.viewport, bytes: statSync(path).size });
    }
  } finally {
    await browser.close();
    await world.stop();
  }
  writeSection(join(repo, "docs", "console.md"), shots);
  return shots;
}

/** The hosted reliable-message service with one send and a one-second acknowledgement wait, so an unacknowledged message is soon DEAD. */
const RELIABLE_QUICKLY = { MSGX_RELIABLE_MAX_SENDS: "1", MSGX_RELIABLE_RESEND_WAITS_MS: "1000", MSGX_RELIABLE_JOB_INTERVAL_MS: "500" };

/**
 * Something for the reliable-messages view to show: on two queues, messages sent and acknowledged,
 * sent and never acknowledged (DEAD after the one send), and prepared but not yet confirmed.
 */
async function reliableTraffic(world: ConsoleWorld): Promise<void> {
  const send = async (queue: string, id: string, confirm: boolean) => {
    const r = await world.admin("POST", `/rm/v1/messages${confirm ? "?confirm=true" : ""}`, { messageId: id, queue, body: JSON.stringify({ id, at: "2026-03-05T06:00" }) });
    if (r.status >= 300) throw new Error(`prepare ${id}: ${r.status} ${JSON.stringify(r.body)}`);
  };
  for (const [queue, n] of [["baggage.sorted", 6], ["crew.roster", 3]] as const) {
    for (let i = 1; i <= n; i++) await send(queue, `${queue}-${i}`, i <= n - 1);
    for (let i = 1; i <= n - 3; i++) await world.admin("POST", `/rm/v1/messages/${queue}-${i}/ack`);
  }
  await eventually(async () => {
    const { queues } = (await world.admin("GET", "/admin/reliable-messages/queues")).body as { queues?: { dead: number }[] };
    return queues !== undefined && queues.reduce((n, q) => n + q.dead, 0) >= 4 ? true : undefined;
  }, 30_000, "the unacknowledged reliable messages DEAD");
}

/** How many requests of `page` are unanswered, counted from now on. */
function requestsInFlight(page: Page): () => number {
  let n = 0;
  page.on("request", () => void n++);
  page.on("requestfinished", () => void n--);
  page.on("requestfailed", () => void n--);
  return () => n;
}

/**
 * Waits until the view shows its data: no request in flight for half a second (a hash route's view
 * fetches after it mounts, so the page's own `networkidle` is long past), no loading placeholder,
 * fonts loaded, and no focus ring left by a click.
 */
async function settle(page: Page, inFlight: () => number): Promise<void> {
  for (let quietSince = Date.now(); Date.now() - quietSince < 500; ) {
    await page.waitForTimeout(100);
    if (inFlight() > 0) quietSince = Date.now();
  }
  // A locator wait, not waitForFunction: the console's CSP (no eval) stops in-page polling of a function.
  await page.locator(".placeholder, .placeholder-row").first().waitFor({ state: "detached" });
  // A string: the root project's types have no DOM.
  await page.evaluate("document.fonts.ready.then(() => document.activeElement?.blur())");
}

/** The screenshots section of docs/console.md, between its markers. */
export function screenshotsSection(shots: readonly Shot[]): string {
  return [
    SECTION_START,
    "## Screenshots",
    "",
    "Taken by `scripts/console-screenshots` (one command: it builds the runner, starts an embedded one on a generated airport day",
    "with dead letters of two held-back FLOP subtypes, drives Debian's chromium through playwright-core, and writes `docs/console/*.png` and this section;",
    "it needs `chromium` and a font with Chinese glyphs, `fonts-wqy-microhei`, for the day's names). The browser test",
    "`packages/runner/test/console.browser.e2e.spec.ts` walks such a world at 1366×768 and again at 390×844, each run on a world",
    "of its own: the token asked for first and the sparklines' scales; the dead letters grouped, one found by its row, previewed,",
    "replayed, and the flight's lineage showing the version it made; a stale one previewed as SKIPPED stale and ending so; a group",
    "replayed as one action; the recent flights and a lineage's row tables, file and line. At 390×844 it also checks",
    "the phone layout: cards, nothing scrolling sideways. A second world (an embedded runner with the task service on, seeded over",
    "`/rm/v1` and `/task/v1`) has the reliable-message view open a message's lineage (prepared, then confirmed: each change's",
    "from → to, cause and HTTP call) and the task view open a dead task event's lineage and list an overdue task with its reason.",
    "",
    ...shots.flatMap((s) => [`### ${s.title} (${s.width}×${s.height})`, "", `![${s.title}](console/${s.file})`, "", s.caption, ""]),
    SECTION_END,
  ].join("\n");
}

/** Replaces the marked section of `file` (appends it when the file has none; creates the file when missing). */
function writeSection(file: string, shots: readonly Shot[]): void {
  const text = existsSync(file) ? readFileSync(file, "utf8") : "# The operations console\n";
  const section = screenshotsSection(shots);
  const start = text.indexOf(SECTION_START.slice(0, SECTION_START.indexOf(" ")));
  const end = text.indexOf(SECTION_END);
  const next = start >= 0 && end > start ? `${text.slice(0, start)}${section}${text.slice(end + SECTION_END.length)}` : `${text.trimEnd()}\n\n${section}\n`;
  writeFileSync(file, next);
}
