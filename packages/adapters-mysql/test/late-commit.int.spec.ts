import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Pool, PoolConnection } from "mysql2/promise";
import { createMailboxTables, dropMailboxTables, MysqlMailbox, type MailboxNames } from "@msgx/adapters-mysql";
import { createMailboxPool, createUpstreamPool, ldmXml, mysqlGate, NAME_MAPS, upstreamInbound } from "./mysql-test-env.js";
import { mysqlPipeline } from "./mysql-pipeline.js";

const gate = await mysqlGate("adapters-mysql: late commit and the safe horizon");

/**
 * SPEC §2.5: an auto-increment id is handed out at INSERT, before COMMIT, so id n can become
 * visible after n+1. Two upstream connections reproduce it; the core's poller (grace 5 s) and
 * pump run on the real adapter. The processed order must equal id order in every case, on the
 * upstream's DDL and on a renamed map.
 */
describe.skipIf(!gate.available).each(NAME_MAPS)("late commit against MariaDB, on $layout", ({ unique }) => {
  const GRACE = 5_000;
  let pool: ReturnType<typeof createMailboxPool>;
  let upstream: Pool;
  let names: MailboxNames;
  let inbound: ReturnType<typeof upstreamInbound>;
  let open: PoolConnection[];
  let seqn = 700_000;

  /** Commits a row at once, as the upstream would. */
  async function committed(): Promise<number> {
    return inbound.insert(ldmXml(seqn++));
  }
  /** Inserts a row in a transaction left open: its id is taken, the row not visible. */
  async function held(): Promise<{ id: number; tx: PoolConnection }> {
    const tx = await upstream.getConnection();
    open.push(tx);
    await tx.query("START TRANSACTION");
    const [r] = await tx.query(`INSERT INTO ${inbound.table} (${inbound.columns.clobMsg}, ${inbound.columns.dateReceived}) VALUES (?, UTC_TIMESTAMP())`, [
      ldmXml(seqn++),
    ]);
    return { id: Number((r as { insertId: number }).insertId), tx };
  }

  beforeAll(() => {
    pool = createMailboxPool();
    upstream = createUpstreamPool();
  });
  afterAll(async () => {
    await pool.end();
    await upstream.end();
  });
  beforeEach(async () => {
    open = [];
    names = unique();
    inbound = upstreamInbound(upstream, names);
    await createMailboxTables(pool, names);
  });
  afterEach(async () => {
    for (const tx of open) {
      await tx.query("ROLLBACK").catch(() => undefined);
      tx.release();
    }
    await dropMailboxTables(pool, names);
  });

  it("processes n+1 only after n when n commits within the grace", async () => {
    const p = mysqlPipeline(new MysqlMailbox(pool, { names }), { gapGraceMs: GRACE });
    const first = await committed();
    const late = await held();
    const next = await committed();
    expect([first, late.id, next]).toEqual([first, first + 1, first + 2]);

    expect((await p.poller.step()).enqueued).toEqual([first, next]);
    expect(p.poller.horizon).toBe(first);
    expect(await p.drain()).toEqual({ did: "await-horizon", msgId: next });
    expect(p.processed()).toEqual([first]);

    p.clock.advance(GRACE - 1_000);
    await p.poller.step();
    expect(await p.drain()).toEqual({ did: "await-horizon", msgId: next });

    await late.tx.query("COMMIT");
    p.clock.advance(500);
    expect((await p.poller.step()).enqueued).toEqual([late.id]);
    expect(p.poller.horizon).toBe(next);
    expect(await p.drain()).toEqual({ did: "idle" });

    expect(p.processed()).toEqual([first, late.id, next]);
    expect(p.store.tables.terminalLog.every((e) => e.status === "SKIPPED")).toBe(true);
    expect(await inbound.unprocessedIds()).toEqual([]);
    expect(p.store.tables.backfill.size).toBe(0);
  });

  it("passes n after the grace when n's transaction rolls back, never before", async () => {
    const p = mysqlPipeline(new MysqlMailbox(pool, { names }), { gapGraceMs: GRACE });
    const first = await committed();
    const late = await held();
    const next = await committed();

    await p.poller.step();
    await p.drain();
    await late.tx.query("ROLLBACK");

    p.clock.advance(GRACE - 1);
    await p.poller.step();
    expect(await p.drain()).toEqual({ did: "await-horizon", msgId: next });
    expect(p.processed()).toEqual([first]);

    p.clock.advance(1);
    await p.poller.step();
    expect(p.poller.horizon).toBe(next);
    expect(await p.drain()).toEqual({ did: "idle" });
    expect(p.processed()).toEqual([first, next]);
    expect(p.logger.lines.filter((l) => l.msg === "mailbox gap passed after grace")).toHaveLength(1);
    expect(await inbound.unprocessedIds()).toEqual([]);
  });

  it("keeps id order through several late ids committing in reverse order, one rolling back", async () => {
    const p = mysqlPipeline(new MysqlMailbox(pool, { names }), { gapGraceMs: GRACE });
    const a = await committed();
    const b = await held();
    const c = await committed();
    const d = await held();
    const e = await held();
    const f = await committed();

    await p.poller.step();
    await p.drain();
    expect(p.processed()).toEqual([a]);

    await d.tx.query("COMMIT");
    p.clock.advance(1_000);
    await p.poller.step();
    await p.drain();
    expect(p.processed()).toEqual([a]); // d is visible, but b is still open

    await b.tx.query("COMMIT");
    p.clock.advance(1_000);
    await p.poller.step();
    await p.drain();
    expect(p.processed()).toEqual([a, b.id, c, d.id]); // e still open: f waits

    await e.tx.query("ROLLBACK");
    p.clock.advance(GRACE);
    await p.poller.step();
    await p.drain();
    expect(p.processed()).toEqual([a, b.id, c, d.id, f]);
    expect(await inbound.unprocessedIds()).toEqual([]);
  });
});
