import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Pool } from "mysql2/promise";
import { createMailboxTables, dropMailboxTables, MysqlMailbox, type MailboxNames } from "@msgx/adapters-mysql";
import { createMailboxPool, createUpstreamPool, ldmXml, mysqlGate, uniqueNames, upstreamInbound } from "./mysql-test-env.js";
import { mysqlPipeline } from "./mysql-pipeline.js";

const gate = await mysqlGate("adapters-mysql: intake throughput");

const ROWS = 5_000;
const perSecond = (n: number, ms: number) => Math.round((n * 1000) / Math.max(ms, 1));

/**
 * SPEC §2.5: intake is never the bottleneck. A full batch is followed at once by the next poll,
 * so the poll interval (1 s) only applies to an idle mailbox. Rates are printed, not asserted.
 */
describe.skipIf(!gate.available)("intake throughput against MariaDB", () => {
  let pool: ReturnType<typeof createMailboxPool>;
  let upstream: Pool;
  let names: MailboxNames;
  let inbound: ReturnType<typeof upstreamInbound>;
  let ids: number[];

  beforeAll(() => {
    pool = createMailboxPool();
    upstream = createUpstreamPool();
  });
  afterAll(async () => {
    await pool.end();
    await upstream.end();
  });
  beforeEach(async () => {
    names = uniqueNames();
    inbound = upstreamInbound(upstream, names);
    await createMailboxTables(pool, names);
    ids = await inbound.insertMany(Array.from({ length: ROWS }, (_, i) => ldmXml(100_000 + i)));
  });
  afterEach(async () => {
    await dropMailboxTables(pool, names);
  });

  it.each([50, 500])(`enqueues ${ROWS} rows by polling again at once while batches come back full (batch %i)`, async (batchSize) => {
    const p = mysqlPipeline(new MysqlMailbox(pool, { names }), { batchSize });
    const started = performance.now();
    let polls = 0;
    let enqueued = 0;
    for (;;) {
      const r = await p.poller.step();
      polls++;
      enqueued += r.enqueued.length;
      if (!r.full) break;
    }
    const ms = performance.now() - started;
    console.info(`[msgx] intake, batch ${batchSize}: ${enqueued} rows in ${polls} polls, ${ms.toFixed(0)} ms → ${perSecond(enqueued, ms)} rows/s`);
    expect(enqueued).toBe(ROWS);
    expect(polls).toBe(Math.floor(ROWS / batchSize) + 1);
    expect(p.poller.horizon).toBe(ids.at(-1));
  });

  it(`processes and backfills ${ROWS} rows through the pump, in batched writes`, async () => {
    const p = mysqlPipeline(new MysqlMailbox(pool, { names }), { batchSize: 500, maxRun: 200 });
    while ((await p.poller.step()).full);
    const started = performance.now();
    await p.drain(1_000);
    const ms = performance.now() - started;
    console.info(`[msgx] pump (in-memory store) + readRaw + backfill: ${ROWS} rows in ${ms.toFixed(0)} ms → ${perSecond(ROWS, ms)} msg/s`);
    expect(p.processed()).toEqual(ids);
    expect(p.store.tables.backfill.size).toBe(0);
    expect(await inbound.unprocessedIds()).toEqual([]);
  });

  it(`backfills ${ROWS} rows in calls of 500`, async () => {
    const mailbox = new MysqlMailbox(pool, { names });
    const meta = { sndr: "AODB", seqn: 1, dttm: "20260305020000", type: "LDM", styp: "NONE" };
    const started = performance.now();
    let written = 0;
    for (let i = 0; i < ids.length; i += 500) {
      const r = await mailbox.backfill(ids.slice(i, i + 500).map((msgId) => ({ msgId, processedAt: Date.now(), meta })));
      written += r.written.length;
    }
    const ms = performance.now() - started;
    console.info(`[msgx] backfill: ${written} rows in ${ms.toFixed(0)} ms → ${perSecond(written, ms)} rows/s`);
    expect(written).toBe(ROWS);
  });
});
