import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Pool } from "mysql2/promise";
import { isMsgxError, ProcStatus } from "@msgx/core";
import {
  createMailboxTables,
  dropMailboxTables,
  MysqlMailbox,
  type MailboxNames,
  type MysqlConnectionLike,
  type MysqlPoolLike,
} from "@msgx/adapters-mysql";
import { createMailboxPool, createRefusedPool, createUpstreamPool, ldmXml, mysqlGate, NAME_MAPS, upstreamInbound } from "./mysql-test-env.js";
import { mysqlPipeline } from "./mysql-pipeline.js";

const gate = await mysqlGate("adapters-mysql: mailbox outages");

/** The mailbox's pool, switchable to a port where every connect is refused (the server "down"). */
class SwitchablePool implements MysqlPoolLike {
  down = false;
  constructor(
    private readonly live: MysqlPoolLike,
    private readonly dead: MysqlPoolLike,
  ) {}
  getConnection(): Promise<MysqlConnectionLike> {
    return (this.down ? this.dead : this.live).getConnection();
  }
}

/**
 * SPEC §2.1/§5: the mailbox down during polling, processing and backfill → nothing lost, nothing
 * DEAD (the pump pauses behind its breaker and spends no attempts), backfill debt drained by the
 * sweep after recovery, order kept. On the upstream's DDL and on a renamed map.
 */
describe.skipIf(!gate.available).each(NAME_MAPS)("mailbox outages against MariaDB, on $layout", ({ unique }) => {
  let pool: ReturnType<typeof createMailboxPool>;
  let refused: Pool;
  let upstream: Pool;
  let names: MailboxNames;
  let inbound: ReturnType<typeof upstreamInbound>;

  beforeAll(() => {
    pool = createMailboxPool();
    refused = createRefusedPool();
    upstream = createUpstreamPool();
  });
  afterAll(async () => {
    await Promise.all([pool.end(), refused.end(), upstream.end()]);
  });
  beforeEach(async () => {
    names = unique();
    inbound = upstreamInbound(upstream, names);
    await createMailboxTables(pool, names);
  });
  afterEach(async () => {
    await dropMailboxTables(pool, names);
  });

  const noneDead = (records: Iterable<{ status: string; attempts: number }>) =>
    [...records].every((r) => r.status !== ProcStatus.DEAD && r.attempts === 0);

  it("survives ten minutes down while polling, processing and backfilling", async () => {
    const ids = await inbound.insertMany(Array.from({ length: 40 }, (_, i) => ldmXml(800_000 + i)));
    const switchable = new SwitchablePool(pool, refused);
    let failAtBackfill = false;
    const p = mysqlPipeline(new MysqlMailbox(switchable, { names }), {
      failpoint: (name) => {
        if (name === "pump.after-commit" && failAtBackfill) switchable.down = true;
      },
    });
    const pump = p.pump;

    // 1. Down while polling: the poll fails as an outage and enqueues nothing.
    switchable.down = true;
    const pollError = await p.poller.step().catch((e: unknown) => e);
    expect(isMsgxError(pollError) && pollError.kind).toBe("DEPENDENCY_UNAVAILABLE");
    expect(p.store.tables.records.size).toBe(0);

    // 2. Back: one full poll enqueues everything.
    switchable.down = false;
    expect((await p.poller.step()).enqueued).toEqual(ids);

    // 3. Down while processing: the pump pauses, ten simulated minutes, no attempt spent.
    switchable.down = true;
    let outages = 0;
    for (let t = 0; t < 600; t++) {
      const step = await pump.step();
      expect(step.did).toBe("outage");
      if (step.did === "outage" && step.error !== "breaker open") outages++;
      p.clock.advance(1_000);
    }
    expect(outages).toBeGreaterThan(5); // it probed, with backoff, rather than hammering
    expect(outages).toBeLessThan(60);
    expect(noneDead(p.store.tables.records.values())).toBe(true);
    expect(p.processed()).toEqual([]);

    // 4. Back for the commit, down again right after it: the backfill fails and is deferred.
    switchable.down = false;
    failAtBackfill = true;
    p.clock.advance(30_000); // past any breaker probe time
    const run = await pump.step();
    expect(run.did).toBe("processed");
    await pump.settle(); // the write-back runs behind the step
    failAtBackfill = false;
    expect(p.processed()).toEqual(ids);
    expect(p.store.tables.backfill.size).toBe(40);
    expect(p.logger.lines.some((l) => l.msg === "backfill deferred to the sweep")).toBe(true);
    expect(await inbound.unprocessedIds()).toEqual(ids);

    // 5. The sweep while still down: deferred with backoff, debt unchanged.
    p.clock.advance(31_000);
    expect(await p.sweeper.step()).toEqual({ done: 0, deferred: 40 });
    expect(p.store.tables.backfill.size).toBe(40);

    // 6. Recovery: the sweep drains the debt.
    switchable.down = false;
    p.clock.advance(15 * 60_000);
    expect(await p.sweeper.step()).toEqual({ done: 40, deferred: 0 });
    expect(p.store.tables.backfill.size).toBe(0);
    expect(await inbound.unprocessedIds()).toEqual([]);
    expect(noneDead(p.store.tables.records.values())).toBe(true);
    expect(p.store.tables.terminalLog.every((e) => e.status === ProcStatus.SKIPPED)).toBe(true);
  });

  it("recovers when the server kills the adapter's connection in the middle of a scan, a read and a backfill", async () => {
    const ids = await inbound.insertMany(Array.from({ length: 30 }, (_, i) => ldmXml(810_000 + i)));
    const p = mysqlPipeline(new MysqlMailbox(pool, { names }));
    const holder = await upstream.getConnection();
    const { table, columns: c } = inbound;
    /**
     * Waits until an adapter statement on the table is blocked behind `holder`, then kills its
     * connection. A connection killed before may still be listed while the server tears it down,
     * and a statement seen running may end with its connection before the KILL: both are looked
     * for again (ER_NO_SUCH_THREAD).
     */
    const killBlocked = async () => {
      for (let i = 0; i < 200; i++) {
        const [rows] = await upstream.query(
          "SELECT ID AS id FROM information_schema.PROCESSLIST WHERE INFO LIKE ? AND INFO NOT LIKE '%PROCESSLIST%' AND COMMAND <> 'Killed' AND ID NOT IN (CONNECTION_ID(), ?)",
          [`%${names.inbound.table}%`, holder.threadId],
        );
        const victim = (rows as { id: number }[])[0];
        if (victim) {
          const killed = await upstream.query(`KILL CONNECTION ${Number(victim.id)}`).then(
            () => true,
            (e: unknown) => {
              if ((e as { errno?: number }).errno === 1094) return false;
              throw e;
            },
          );
          if (killed) return;
        }
        await new Promise((r) => setTimeout(r, 10));
      }
      throw new Error("no blocked adapter statement showed up");
    };
    try {
      // A scan blocked by a table lock, killed.
      await holder.query(`LOCK TABLES ${table} WRITE`);
      const poll = p.poller.step().catch((e: unknown) => e);
      await killBlocked();
      const pollError = await poll;
      expect(isMsgxError(pollError) && pollError.kind).toBe("DEPENDENCY_UNAVAILABLE");
      await holder.query("UNLOCK TABLES");
      expect((await p.poller.step()).enqueued).toEqual(ids);

      // readRaw blocked the same way, killed: the pump pauses, no attempt spent.
      await holder.query(`LOCK TABLES ${table} WRITE`);
      const step = p.pump.step();
      await killBlocked();
      expect((await step).did).toBe("outage");
      await holder.query("UNLOCK TABLES");
      expect(noneDead(p.store.tables.records.values())).toBe(true);

      // The backfill blocked on row locks after the commit, killed: deferred to the sweep.
      await holder.query("START TRANSACTION");
      await holder.query(`SELECT ${c.id} FROM ${table} FOR UPDATE`);
      p.clock.advance(60_000);
      const run = p.pump.step();
      await killBlocked();
      expect((await run).did).toBe("processed");
      await holder.query("ROLLBACK");
      expect(p.processed()).toEqual(ids);
      expect(p.store.tables.backfill.size).toBe(ids.length);

      p.clock.advance(31_000);
      expect(await p.sweeper.step()).toEqual({ done: ids.length, deferred: 0 });
      expect(await inbound.unprocessedIds()).toEqual([]);
      expect(noneDead(p.store.tables.records.values())).toBe(true);
    } finally {
      await holder.query("UNLOCK TABLES").catch(() => undefined);
      await holder.query("ROLLBACK").catch(() => undefined);
      holder.release();
    }
  });
});
