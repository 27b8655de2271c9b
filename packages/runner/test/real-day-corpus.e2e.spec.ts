/**
 * The real-day corpus (core/test/fixtures/real-day) through the embedded runner, in process, by
 * its HTTP ingress: each message is POSTed to `/cminmsgs/send`, its outcome read back through
 * `GET /admin/messages/<id>`, its warnings from `msgx_message_warnings_total`, and the value walk
 * and the manifest's checks read flights and reference rows through the admin routes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { judge, loadCorpus, MANIFEST, type CorpusStateView, type Outcome } from "../../core/test/fixtures/real-day/corpus.js";
import { eventually, startInProcess, type InProcessRunner } from "./requests-world.js";

/** Runner settings for the corpus run: an unknown TYPE is skipped at once (see the manifest). */
const CORPUS_OVERRIDES: Record<string, string> = { "types.unsupported.mode": "skip" };

const getJson = async (url: string, path: string): Promise<unknown> => {
  const res = await fetch(new URL(path, url));
  if (res.status === 404) return undefined;
  if (!res.ok) throw new Error(`GET ${path}: HTTP ${res.status} ${await res.text()}`);
  return res.json();
};

const httpView = (url: string): CorpusStateView => ({
  flight: (flid) => getJson(url, `/admin/flights/${encodeURIComponent(flid)}`),
  reference: (rtype, rkey) => getJson(url, `/admin/reference/${encodeURIComponent(rtype)}/${encodeURIComponent(rkey)}`),
});

/** `msgx_message_warnings_total` by code. */
async function warningCounts(url: string): Promise<Map<string, number>> {
  const text = await (await fetch(new URL("/metrics", url))).text();
  const counts = new Map<string, number>();
  for (const m of text.matchAll(/^msgx_message_warnings_total\{code="([^"]+)"\} (\d+)/gm)) counts.set(m[1]!, Number(m[2]));
  return counts;
}

const TERMINAL = new Set(["SUCCEEDED", "SKIPPED", "DEAD"]);

describe("the real-day corpus through the embedded runner's HTTP ingress", () => {
  let r: InProcessRunner;
  const verdicts = new Map<string, { outcome: Outcome; problems: string[] }>();
  beforeAll(async () => {
    r = await startInProcess(CORPUS_OVERRIDES);
    const view = httpView(r.url);
    const ids = new Map<string, number>();
    for (const m of loadCorpus()) {
      const before = new Map<string, unknown>();
      for (const c of m.entry.checks ?? []) if ("unchanged" in c) before.set(c.flight, await view.flight(c.flight));
      const warnedBefore = await warningCounts(r.url);
      const res = await fetch(new URL("/cminmsgs/send", r.url), { method: "POST", headers: { "content-type": "application/xml" }, body: m.raw });
      expect(res.status, m.file).toBe(200);
      const id = Number(await res.text());
      ids.set(m.file, id);
      const record = await eventually(async () => {
        const rec = (await getJson(r.url, `/admin/messages/${id}`)) as { status: string; reason: string | null; errorClass: string | null; attempts: number } | undefined;
        return rec !== undefined && (TERMINAL.has(rec.status) || rec.status === "FAILED") ? rec : undefined;
      }, `${m.file} processed`);
      // The runner counts a run's warnings just after its commit: wait for the ones expected.
      const raised = async () => [...(await warningCounts(r.url))].flatMap(([code, n]) => Array<string>(n - (warnedBefore.get(code) ?? 0)).fill(code));
      const expected = m.entry.warnings ?? [];
      const warnings = await eventually(async () => ((w) => (expected.every((c) => w.includes(c)) ? w : undefined))(await raised()), `${m.file} warnings`, 5_000).catch(() => raised());
      const outcome: Outcome = { status: record.status, reason: record.reason, errorClass: record.errorClass, attempts: record.attempts, warnings };
      verdicts.set(m.file, { outcome, problems: await judge(m, outcome, view, before, (file) => ids.get(file) ?? -1) });
      // A message left FAILED holds the head: replay nothing, just let the next ones be judged behind it.
      if (!TERMINAL.has(record.status)) await eventually(async () => ((x) => (x !== undefined && TERMINAL.has((x as { status: string }).status) ? x : undefined))(await getJson(r.url, `/admin/messages/${id}`)), `${m.file} terminal`, 60_000);
    }
  }, 600_000);
  afterAll(() => r?.stop());

  it.each(MANIFEST.map((e) => [e.file, e.status] as const))("%s → %s", (file) => {
    const v = verdicts.get(file);
    expect(v?.problems, `${file}: ${JSON.stringify(v?.outcome)}`).toEqual([]);
  });

  it("serves the day's flights and reference data through the admin routes", async () => {
    const all = (await getJson(r.url, "/all/flights?limit=100")) as { flights: { flid: string }[] };
    expect(all.flights.map((f) => f.flid)).toEqual(["900301", "900302", "900303", "900304", "900305", "900306", "900309", "900310"]);
    const types = (await getJson(r.url, "/admin/reference")) as { rtype: string; live: number }[];
    expect(types.map((t) => t.rtype).sort()).toEqual(
      "ABDG ABNR AIRC AIRL ARPT BLST CHLT CITY CLST COUL DLYL FLTL GLST HLTR ORGN PLST REGL REGN SLST STTS TLST VIPL VIPS".split(" "),
    );
    expect(types.find((t) => t.rtype === "BLST")?.live).toBe(2);
  });
});
