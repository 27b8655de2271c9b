import { DEFAULT_RETRY_POLICY, emptyRunDecision, type Logger, type Mailbox } from "@msgx/core";
import { evolveProc } from "@msgx/core/testing";
import { describe, expect, it } from "vitest";
import { Reconciler } from "../../src/jobs/reconciler.js";
import { MaintenanceWorld, sis } from "./maintenance-world.js";

const T0 = Date.UTC(2026, 2, 5, 2, 0);

/** A logger that keeps the error lines. */
function recordingLogger(): Logger & { errors: { msg: string; fields: unknown }[] } {
  const errors: { msg: string; fields: unknown }[] = [];
  return { errors, debug() {}, info() {}, warn() {}, error: (msg, fields) => void errors.push({ msg, fields }) };
}

/** A world whose mailbox holds `n` ignorable messages, all processed and written back. */
async function processed(n: number, options: ConstructorParameters<typeof MaintenanceWorld>[0] = {}) {
  const w = new MaintenanceWorld({ start: T0, ...options });
  for (let i = 1; i <= n; i++) w.send(sis.ldm(i, w.clock.now()));
  await w.settle();
  return w;
}

describe("Reconciler", () => {
  it("walks the newest window below the horizon a page per step, then reports the pass", async () => {
    const w = await processed(25, { reconciler: { windowSize: 20, pageSize: 8 } });
    const pages = [];
    for (;;) {
      const p = await w.reconciler.step();
      pages.push([p.from, p.through, p.more]);
      if (!p.more) break;
    }
    expect(pages).toEqual([
      [5, 13, true],
      [13, 21, true],
      [21, 25, false],
    ]);
    expect(w.reconciler.lastPass).toEqual({ from: 5, through: 25, processedWithoutTerminal: 0, backfillMissing: 0, reregistered: 0, finishedAt: w.clock.now() });
  });

  it("reports mailbox rows marked processed without a terminal record (never enqueued, or replayed and unfinished)", async () => {
    const logger = recordingLogger();
    const w = await processed(3, { logger });
    // Someone else marks a row processed before we ever enqueue it; the poller passes it.
    const foreign = w.send(sis.ldm(50, w.clock.now()));
    w.mailbox.rows.get(foreign)!.processedAt = w.clock.now();
    await w.settle();
    // A DEAD record replayed by an operator: PENDING again while its mailbox row stays processed.
    const dead = w.send("<MSG>not xml");
    await w.settle();
    const deadRecord = (await w.pipeline.get(dead))!;
    expect(deadRecord.status).toBe("DEAD");
    const replayed = evolveProc(deadRecord, { type: "replayed" }, { now: w.clock.now() }, DEFAULT_RETRY_POLICY);
    await w.pipeline.transaction((tx) => tx.applyRun({ ...emptyRunDecision, records: [replayed] }));

    const page = await w.reconciler.step();
    const expected = [
      { msgId: foreign, state: "missing" },
      { msgId: dead, state: "PENDING" },
    ];
    expect(page.processedWithoutTerminal).toEqual(expected);
    expect(page.backfillMissing).toEqual([]);
    expect(logger.errors.map((e) => e.msg)).toContain("reconciler: mailbox rows marked processed without a terminal PROC_STATE row");
    expect(w.reconciler.lastPass?.processedWithoutTerminal).toBe(expected.length);
  });

  it("finds terminal records whose backfill never happened (live or archived) and registers the todo again", async () => {
    const logger = recordingLogger();
    const w = await processed(4, { logger, archive: { keepLastIds: 0, batchSize: 2 } });
    w.clock.advance(8 * 86_400_000);
    await w.archiver.step();
    expect([...w.pipeline.archive.keys()]).toEqual([1, 2]);
    // The write-backs of 1, 2 (archived) and 3 (live) were undone upstream.
    for (const id of [1, 2, 3]) w.mailbox.rows.get(id)!.processedAt = null;
    // A fresh record whose todo is still pending: the backfill sweep's business, not an anomaly.
    const live = w.send(sis.ldm(9, w.clock.now()));
    await w.settle();
    w.mailbox.rows.get(live)!.processedAt = null;
    await w.pipeline.transaction((tx) =>
      tx.applyRun({ ...emptyRunDecision, backfill: [{ msgId: live, processedAt: w.clock.now(), meta: null }] }),
    );

    const page = await w.reconciler.step();
    expect(page.backfillMissing).toEqual([1, 2, 3]);
    expect(page.reregistered).toEqual([1, 2, 3]);
    expect(logger.errors.map((e) => e.msg)).toContain("reconciler: terminal rows whose mailbox backfill never happened; backfill todo registered again");
    // The backfill sweep writes them back; the next pass finds nothing.
    await w.backfill.step();
    expect([1, 2, 3, live].map((id) => w.mailbox.rows.get(id)!.processedAt !== null)).toEqual([true, true, true, false]);
    expect((await w.reconciler.step()).backfillMissing).toEqual([]);
  });

  it("raises no false alarm when the pump finishes a message between its reads", async () => {
    const w = new MaintenanceWorld({ start: T0 });
    w.send(sis.ldm(1, T0));
    while ((await w.poller.step()).full);
    expect((await w.pipeline.get(1))?.status).toBe("PENDING");
    // The pump commits, backfills the mailbox and drops the todo right before the scan.
    const racing: Mailbox = {
      scan: async (after, limit) => {
        await w.settle();
        return w.mailbox.scan(after, limit);
      },
      readRaw: (ids) => w.mailbox.readRaw(ids),
      backfill: (e) => w.mailbox.backfill(e),
      append: (raw) => w.mailbox.append(raw),
    };
    const reconciler = new Reconciler({ store: w.store, pipeline: w.pipeline, mailbox: racing, clock: w.clock, logger: recordingLogger() });
    const page = await reconciler.step();
    expect(w.mailbox.rows.get(1)!.processedAt).not.toBeNull();
    expect(page).toMatchObject({ processedWithoutTerminal: [], backfillMissing: [] });
  });

  it("each check can be turned off (a STATUS-filtered mailbox; shadow mode)", async () => {
    const w = await processed(2, { reconciler: { checkProcessed: false, checkBackfill: false } });
    w.mailbox.rows.get(1)!.processedAt = null;
    const foreign = w.send(sis.ldm(5, w.clock.now()));
    w.mailbox.rows.get(foreign)!.processedAt = w.clock.now();
    await w.settle();
    expect(await w.reconciler.step()).toMatchObject({ processedWithoutTerminal: [], backfillMissing: [] });
  });
});
