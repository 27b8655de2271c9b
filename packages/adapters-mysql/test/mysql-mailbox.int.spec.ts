import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Pool, PoolConnection } from "mysql2/promise";
import { InboxPoller, isMsgxError, MsgxError, silentLogger, type Mailbox, type Meta } from "@msgx/core";
import { InMemoryPipelineStore, ManualClock } from "@msgx/core/fakes";
import {
  createMailboxTables,
  dropMailboxTables,
  instantToDatetime,
  MysqlMailbox,
  type InboundColumns,
  type MailboxNames,
  type MysqlConnectionLike,
  type MysqlMailboxOptionsInput,
  type MysqlPoolLike,
  type MysqlQueryOptions,
} from "@msgx/adapters-mysql";
import { createMailboxPool, createRefusedPool, createUpstreamPool, MYSQL_URL, mysqlGate, uniqueNames, upstreamInbound } from "./mysql-test-env.js";

const gate = await mysqlGate("adapters-mysql: MysqlMailbox specifics");

const meta: Meta = { sndr: "AODB", seqn: 480211, dttm: "20260305020000", type: "SCHD", styp: "DNLD" };
const AT = Date.UTC(2026, 2, 5, 2, 0, 7, 999);

/** Resolves to the `MsgxError` a promise rejects with (fails the test if it resolves). */
async function rejection(p: Promise<unknown>): Promise<MsgxError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!isMsgxError(e)) throw new Error(`expected a MsgxError, got ${String(e)}`);
  return e;
}

/**
 * `pool` with every statement sent on it shown to `seen`: the mailbox's own statements, which the
 * server's counters (`Com_insert`, …) would mix with those of the suites running beside this one.
 */
function watchedPool(pool: MysqlPoolLike, seen: (sql: string) => void): MysqlPoolLike {
  return {
    async getConnection(): Promise<MysqlConnectionLike> {
      const c = await pool.getConnection();
      return {
        query: (o) => (seen(o.sql), c.query(o)),
        ...(c.execute ? { execute: (o: MysqlQueryOptions) => (seen(o.sql), c.execute!(o)) } : {}),
        release: () => c.release(),
        destroy: () => c.destroy(),
        connection: c.connection,
      };
    },
  };
}

describe.skipIf(!gate.available)("MysqlMailbox against MariaDB: adapter specifics", () => {
  let pool: ReturnType<typeof createMailboxPool>;
  let upstream: Pool;
  let names: MailboxNames;
  /** The quoted inbound table and its columns. */
  let t: string;
  let c: InboundColumns;
  let inbound: ReturnType<typeof upstreamInbound>;
  const mailbox = (o: MysqlMailboxOptionsInput = {}) => new MysqlMailbox(pool, { names, ...o });
  const insert = (raw: string, extra: Partial<Record<keyof InboundColumns, unknown>> = {}): Promise<number> => inbound.insert(raw, extra);
  const row = async (id: number) => {
    const [rows] = await upstream.query(
      `SELECT DATE_FORMAT(${c.dateProcessed}, '%Y-%m-%d %H:%i:%s') AS processed, ${c.subsystemName} AS name, ${c.subsystemSequence} AS seq,
              DATE_FORMAT(${c.subsystemDateSent}, '%Y-%m-%d %H:%i:%s') AS sent, ${c.subsystemType} AS type, ${c.subsystemSubtype} AS subtype
       FROM ${t} WHERE ${c.id} = ?`,
      [id],
    );
    return (rows as Record<string, unknown>[])[0];
  };

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
    ({ table: t, columns: c } = inbound);
    await createMailboxTables(pool, names);
  });
  afterEach(async () => {
    await dropMailboxTables(pool, names);
  });

  it("writes DATE_PROCESSED as UTC, truncated to the second, and DTTM as SUBSYSTEM_DATE_SENT", async () => {
    const id = await insert("<x/>");
    await mailbox().backfill([{ msgId: id, processedAt: AT, meta }]);
    expect(await row(id)).toEqual({
      processed: "2026-03-05 02:00:07",
      name: "AODB",
      seq: 480211,
      sent: "2026-03-05 02:00:00",
      type: "SCHD",
      subtype: "DNLD",
    });
  });

  it("tells written from alreadyDone exactly: new, already processed, gone, never existed, duplicated", async () => {
    const [fresh, done, gone] = [await insert("<a/>"), await insert("<b/>"), await insert("<c/>")];
    const m = mailbox();
    await m.backfill([{ msgId: done, processedAt: AT, meta: null }]);
    await upstream.query(`DELETE FROM ${t} WHERE ${c.id} = ?`, [gone]);
    const result = await m.backfill([
      { msgId: fresh, processedAt: AT, meta },
      { msgId: done, processedAt: AT + 1000, meta },
      { msgId: gone, processedAt: AT, meta },
      { msgId: gone + 100, processedAt: AT, meta },
      { msgId: fresh, processedAt: AT + 5000, meta: null },
    ]);
    expect(result).toEqual({ written: [fresh], alreadyDone: [done, gone, gone + 100], defects: [] });
    expect((await row(done))?.["name"]).toBeNull();
  });

  it("reports every kind of misfit as a defect, writes DATE_PROCESSED, leaves SUBSYSTEM_* untouched", async () => {
    const misfits: Meta[] = [
      { ...meta, sndr: "TOOLONG" },
      { ...meta, type: "SCHED" },
      { ...meta, styp: "DNLDX" },
      { ...meta, seqn: 8_388_608 },
      { ...meta, dttm: "20261399000000" },
    ];
    const ids: number[] = [];
    for (const _ of misfits) ids.push(await insert("<x/>"));
    const fits = await insert("<x/>");
    const emoji = await insert("<x/>");
    const result = await mailbox().backfill([
      ...misfits.map((m, i) => ({ msgId: ids[i]!, processedAt: AT, meta: m })),
      { msgId: fits, processedAt: AT, meta: { ...meta, seqn: 8_388_607 } },
      // Four characters, eight UTF-16 units: fits a VARCHAR(4) in utf8mb4.
      { msgId: emoji, processedAt: AT, meta: { ...meta, sndr: "𝄞𝄞𝄞𝄞" } },
    ]);
    expect(result.written).toEqual([...ids, fits, emoji]);
    expect(result.defects.map((d) => d.msgId)).toEqual(ids);
    expect(result.defects.map((d) => d.reason.split(" ")[0])).toEqual([
      "SUBSYSTEM_NAME",
      "SUBSYSTEM_TYPE",
      "SUBSYSTEM_SUBTYPE",
      "SUBSYSTEM_SEQUENCE",
      "SUBSYSTEM_DATE_SENT",
    ]);
    for (const id of ids) expect(await row(id)).toMatchObject({ processed: "2026-03-05 02:00:07", name: null, seq: null, sent: null });
    expect(await row(fits)).toMatchObject({ seq: 8_388_607 });
    expect(await row(emoji)).toMatchObject({ name: "𝄞𝄞𝄞𝄞" });
  });

  it("splits a large call into statements of backfillChunk rows", async () => {
    const ids: number[] = [];
    for (let i = 0; i < 23; i++) ids.push(await insert(`<m n="${i}"/>`));
    const result = await mailbox({ backfillChunk: 5 }).backfill(ids.map((msgId) => ({ msgId, processedAt: AT, meta })));
    expect(result.written).toEqual(ids);
    expect((await mailbox().scan(0, 100)).every((r) => !r.pending)).toBe(true);
  });

  it("writes back in one statement when every row is open, and reads once to split written from done before and gone", async () => {
    const [fresh, doneBefore, gone, alsoFresh] = [await insert("<a/>"), await insert("<b/>"), await insert("<c/>"), await insert("<d/>")];
    await mailbox().backfill([{ msgId: doneBefore, processedAt: AT - 60_000, meta: null }]);
    await upstream.query(`DELETE FROM ${t} WHERE ${c.id} = ?`, [gone]);
    const sent: string[] = [];
    const m = new MysqlMailbox(
      watchedPool(pool, (sql) => {
        if (!sql.startsWith("SET")) sent.push(sql.split(" ")[0]!);
      }),
      { names },
    );
    const misfit = { ...meta, sndr: "TOOLONG" };
    const result = await m.backfill([
      { msgId: fresh, processedAt: AT, meta: misfit },
      { msgId: doneBefore, processedAt: AT, meta: misfit },
      { msgId: gone, processedAt: AT, meta },
      { msgId: alsoFresh, processedAt: AT, meta },
    ]);
    expect(result).toEqual({ written: [fresh, alsoFresh], alreadyDone: [doneBefore, gone], defects: [{ msgId: fresh, reason: expect.any(String) }] });
    expect(sent.splice(0)).toEqual(["UPDATE", "SELECT"]);
    expect(await row(doneBefore)).toMatchObject({ processed: "2026-03-05 01:59:07", name: null });
    expect(await row(alsoFresh)).toMatchObject({ processed: "2026-03-05 02:00:07", name: "AODB" });

    const open = await insert("<e/>");
    expect((await m.backfill([{ msgId: open, processedAt: AT, meta }])).written).toEqual([open]);
    expect(sent.splice(0)).toEqual(["UPDATE"]);
  });

  it("gives each row to exactly one of two concurrent backfills", async () => {
    const ids: number[] = [];
    for (let i = 0; i < 200; i++) ids.push(await insert(`<m n="${i}"/>`));
    const entries = ids.map((msgId) => ({ msgId, processedAt: AT, meta }));
    const [a, b] = await Promise.all([mailbox().backfill(entries), mailbox().backfill([...entries].reverse())]);
    expect([...a.written, ...b.written].sort((x, y) => x - y)).toEqual(ids);
    expect(new Set(a.written).size + new Set(a.alreadyDone).size).toBe(200);
    expect(a.written.filter((id) => b.written.includes(id))).toEqual([]);
  });

  it("splits overlapping concurrent backfills exactly: each row holds the value of the one call that reports it written", async () => {
    const ids: number[] = [];
    for (let i = 0; i < 300; i++) ids.push(await insert(`<m n="${i}"/>`));
    const calls = [
      { ids: ids.slice(0, 200), at: AT },
      { ids: ids.slice(100), at: AT + 3_000 },
      { ids: ids.filter((_, i) => i % 3 === 0), at: AT + 6_000 },
    ];
    const results = await Promise.all(
      calls.map((call, k) => mailbox({ backfillChunk: 40 + k * 7 }).backfill(call.ids.map((msgId) => ({ msgId, processedAt: call.at, meta })))),
    );
    const writer = new Map<number, number>();
    results.forEach((r, k) => {
      expect([...r.written, ...r.alreadyDone].sort((x, y) => x - y)).toEqual(calls[k]!.ids);
      for (const id of r.written) {
        expect(writer.has(id)).toBe(false);
        writer.set(id, k);
      }
    });
    expect([...writer.keys()].sort((x, y) => x - y)).toEqual(ids);
    const [rows] = await upstream.query(`SELECT ${c.id} AS id, DATE_FORMAT(${c.dateProcessed}, '%Y-%m-%d %H:%i:%s') AS processed FROM ${t}`);
    for (const r of rows as { id: number; processed: string }[]) {
      expect(r.processed).toBe(instantToDatetime(calls[writer.get(Number(r.id))!]!.at));
    }
  });

  it("never leaves a row unreported by overlapping concurrent backfills of the same entries (the pump and the sweep racing)", async () => {
    const ids: number[] = [];
    for (let i = 0; i < 300; i++) ids.push(await insert(`<m n="${i}"/>`));
    const calls = [ids.slice(0, 200), ids.slice(100), ids.filter((_, i) => i % 3 === 0)];
    const results = await Promise.all(
      calls.map((callIds, k) => mailbox({ backfillChunk: 40 + k * 7 }).backfill(callIds.map((msgId) => ({ msgId, processedAt: AT, meta })))),
    );
    results.forEach((r, k) => expect([...r.written, ...r.alreadyDone].sort((x, y) => x - y)).toEqual(calls[k]));
    expect([...new Set(results.flatMap((r) => r.written))].sort((x, y) => x - y)).toEqual(ids);
    expect(await inbound.unprocessedIds()).toEqual([]);
  });

  it("reads DATE_RECEIVED in the upstream's zone and appends in it", async () => {
    const id = await insert("<x/>", { dateReceived: "2026-03-05 10:00:00" });
    const m = mailbox({ upstreamTimeZone: "+08:00" });
    expect((await m.scan(0, 1))[0]).toEqual({ msgId: id, receivedAt: Date.UTC(2026, 2, 5, 2, 0, 0), pending: true });
    const before = Date.now();
    const appended = await m.append("<MSG/>");
    // Read from the table (the appending mailbox would give the row from memory).
    const received = (await mailbox({ upstreamTimeZone: "+08:00", appendedRows: 0 }).scan(id, 1))[0]?.receivedAt ?? 0;
    // DATE_RECEIVED is kept to the second.
    expect(received - before).toBeGreaterThanOrEqual(-1_000);
    expect(received - before).toBeLessThan(5_000);
    expect((await m.readRaw([appended])).get(appended)).toEqual({ found: true, text: "<MSG/>" });
  });

  it("gives every one of many concurrent appends its own row and id, grouped or not, the text exact to the character", async () => {
    // 4-byte characters, quotes, CR and a long text among them: what the row holds must be what was sent.
    const texts = Array.from({ length: 300 }, (_, i) => `<MSG n="${i}">${i % 7 === 0 ? "航班 🛫 \r\n'\"" : ""}${i % 50 === 0 ? "x".repeat(100_000) : ""}</MSG>`);
    for (const options of [{}, { appendGrouping: null }]) {
      const m = mailbox(options);
      const ids = await Promise.all(texts.map((t) => m.append(t)));
      expect(new Set(ids).size).toBe(texts.length);
      // Read back from the table, not from memory.
      const read = await mailbox({ appendedTextChars: 0 }).readRaw(ids);
      expect(ids.map((id) => read.get(id))).toEqual(texts.map((text) => ({ found: true, text })));
      // And the pump's read from the appending mailbox (memory) gives the same.
      const held = await m.readRaw(ids);
      expect(ids.map((id) => held.get(id))).toEqual(texts.map((text) => ({ found: true, text })));
    }
  });

  it("groups appends on this server: fewer INSERT statements than appends", async () => {
    let inserts = 0;
    const m = new MysqlMailbox(
      watchedPool(pool, (sql) => {
        if (/^\s*INSERT\b/i.test(sql)) inserts++;
      }),
      { names },
    );
    await m.append("<warm/>");
    const start = inserts;
    await Promise.all(Array.from({ length: 100 }, (_, i) => m.append(`<MSG n="${i}"/>`)));
    // 100 single-row appends would be 100 statements.
    expect(inserts - start).toBeLessThan(60);
    expect(inserts - start).toBeGreaterThan(0);
  });

  it("treats a NULL text as missing raw text, on a table that allows it (the upstream's does not)", async () => {
    await expect(upstream.query(`INSERT INTO ${t} (${c.clobMsg}) VALUES (NULL)`)).rejects.toMatchObject({ code: "ER_BAD_NULL_ERROR" });
    await upstream.query(`ALTER TABLE ${t} MODIFY ${c.clobMsg} MEDIUMTEXT NULL`);
    const [r] = await upstream.query(`INSERT INTO ${t} (${c.clobMsg}) VALUES (NULL)`);
    const id = Number((r as { insertId: number }).insertId);
    expect((await mailbox().readRaw([id])).get(id)).toEqual({ found: false });
  });

  it("refuses an id past 2^53 instead of rounding it", async () => {
    await upstream.query(`INSERT INTO ${t} (${c.id}, ${c.clobMsg}) VALUES (9007199254740993, '<x/>')`);
    const e = await rejection(mailbox().scan(0, 10));
    expect(e.kind).toBe("INFRA");
    expect(e.message).toContain("9007199254740993");
  });

  it("shows only committed rows: an open insert is invisible until it commits", async () => {
    const first = await insert("<a/>");
    const tx = await upstream.getConnection();
    try {
      await tx.query("START TRANSACTION");
      await tx.query(`INSERT INTO ${t} (${c.clobMsg}) VALUES ('<late/>')`);
      const later = await insert("<b/>");
      expect((await mailbox().scan(0, 10)).map((r) => r.msgId)).toEqual([first, later]);
      await tx.query("COMMIT");
      expect((await mailbox().scan(0, 10)).map((r) => r.msgId)).toEqual([first, later - 1, later]);
    } finally {
      tx.release();
    }
  });

  it("with pendingIgnoresDateProcessed (shadow reads), processed rows stay pending", async () => {
    const id = await insert("<x/>", { status: "HOLD" });
    await mailbox().backfill([{ msgId: id, processedAt: AT, meta: null }]);
    expect((await mailbox({ pendingIgnoresDateProcessed: true }).scan(0, 1))[0]?.pending).toBe(true);
    expect((await mailbox({ pendingIgnoresDateProcessed: true, onlyValidStatus: true }).scan(0, 1))[0]?.pending).toBe(false);
  });

  it("appends rows with STATUS 'VALID' as the upstream's carry them, so the STATUS filter takes them (the column has no default)", async () => {
    const m = mailbox({ onlyValidStatus: true });
    const id = await m.append("<MSG/>");
    const [rows] = await upstream.query(`SELECT ${c.status} AS status FROM ${t} WHERE ${c.id} = ?`, [id]);
    expect(rows).toEqual([{ status: "VALID" }]);
    expect((await mailbox({ onlyValidStatus: true, appendedRows: 0 }).scan(0, 10)).map((r) => [r.msgId, r.pending])).toEqual([[id, true]]);
    // The appending mailbox gives the row from memory, pending alike.
    expect((await m.scan(0, 10)).map((r) => [r.msgId, r.pending])).toEqual([[id, true]]);
  });

  describe("scanning what it appended (AppendedRows)", () => {
    /** A mailbox on a pool that counts the scans' SELECTs sent to the server. */
    const counted = (o: MysqlMailboxOptionsInput = {}) => {
      const seen = { selects: 0 };
      const m = new MysqlMailbox(
        watchedPool(pool, (sql) => {
          if (/^\s*SELECT\b/i.test(sql) && sql.includes(" LIMIT ")) seen.selects++;
        }),
        { names, ...o },
      );
      return { m, seen };
    };

    it("gives the rows it appended right above the cursor without a query, and reads the table from the first row it did not append", async () => {
      const { m, seen } = counted();
      const first = await insert("<upstream/>");
      const ours = [await m.append("<a/>"), await m.append("<b/>"), await m.append("<c/>")];
      const foreign = await insert("<upstream-2/>");
      const last = await m.append("<d/>");
      expect(ours).toEqual([first + 1, first + 2, first + 3]);
      // The upstream's row below them comes from the table.
      expect((await m.scan(0, 1)).map((r) => r.msgId)).toEqual([first]);
      expect(seen.selects).toBe(1);
      const held = await m.scan(first, 50);
      expect(held.map((r) => [r.msgId, r.pending])).toEqual(ours.map((id) => [id, true]));
      expect(seen.selects).toBe(1);
      // The upstream's row ends the held run: the table gives it and the one appended after it.
      expect((await m.scan(ours[2]!, 50)).map((r) => r.msgId)).toEqual([foreign, last]);
      expect(seen.selects).toBe(2);
      // What memory gave is what the table holds.
      expect((await mailbox({ appendedRows: 0 }).scan(first, 50)).map((r) => [r.msgId, r.pending])).toEqual([...ours, foreign, last].map((id) => [id, true]));
    });

    it("answers at most `limit` rows from memory, and reads every scan from the table with appendedRows 0", async () => {
      const held = counted();
      const ids = await Promise.all(Array.from({ length: 5 }, (_, i) => held.m.append(`<n${i}/>`)));
      const sorted = [...ids].sort((a, b) => a - b);
      expect((await held.m.scan(sorted[0]! - 1, 2)).map((r) => r.msgId)).toEqual(sorted.slice(0, 2));
      expect((await held.m.scan(sorted[1]!, 10)).map((r) => r.msgId)).toEqual(sorted.slice(2));
      expect(held.seen.selects).toBe(0);
      const table = counted({ appendedRows: 0 });
      const id = await table.m.append("<t/>");
      expect((await table.m.scan(id - 1, 10)).map((r) => r.msgId)).toEqual([id]);
      expect(table.seen.selects).toBe(1);
    });

    it("never passes over a row another writer committed in between, nor one still open: the intake enqueues every row once and its horizon reaches the last", async () => {
      // Appends of this mailbox and of another writer interleave at random, some of the other
      // writer's inside a transaction that commits later; the intake polls between them.
      const { m } = counted();
      // Every answer is the start of what the table holds above afterId (ids and pending; a held
      // row's receivedAt is its append's instant).
      const table = mailbox({ appendedRows: 0 });
      const checked: Mailbox = {
        scan: async (afterId, limit) => {
          const got = await m.scan(afterId, limit);
          const expected = (await table.scan(afterId, limit)).slice(0, got.length);
          expect(got.map((r) => [r.msgId, r.pending])).toEqual(expected.map((r) => [r.msgId, r.pending]));
          return got;
        },
        readRaw: (ids) => m.readRaw(ids),
        backfill: (entries) => m.backfill(entries),
        append: (raw) => m.append(raw),
      };
      const clock = new ManualClock();
      const poller = new InboxPoller({ mailbox: checked, store: new InMemoryPipelineStore(clock), clock, logger: silentLogger }, { batchSize: 7 });
      const enqueued: number[] = [];
      let random = 7;
      const next = () => (random = (random * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
      const open = await upstream.getConnection();
      let openRows = 0;
      try {
        for (let i = 0; i < 120; i++) {
          const r = next();
          if (r < 0.55) await m.append(`<ours n="${i}"/>`);
          else if (r < 0.8) await insert(`<theirs n="${i}"/>`);
          else if (openRows === 0) {
            await open.query("START TRANSACTION");
            await open.query(`INSERT INTO ${t} (${c.clobMsg}) VALUES ('<late/>')`);
            openRows = 1;
          } else {
            await open.query("COMMIT");
            openRows = 0;
          }
          if (next() < 0.5) enqueued.push(...(await poller.step()).enqueued);
        }
        if (openRows > 0) await open.query("COMMIT");
      } finally {
        open.release();
      }
      for (let full = true; full; ) {
        const step = await poller.step();
        enqueued.push(...step.enqueued);
        full = step.full || step.enqueued.length > 0;
      }
      const [rows] = await upstream.query(`SELECT ${c.id} AS id FROM ${t} ORDER BY ${c.id}`);
      const all = (rows as { id: number }[]).map((row) => Number(row.id));
      expect(all.length).toBeGreaterThan(100);
      // A row that committed late is enqueued after rows above it; the horizon keeps the pump behind it.
      expect([...enqueued].sort((a, b) => a - b)).toEqual(all);
      expect(poller.horizon).toBe(all.at(-1));
    });
  });

  it("with backfillSubsystem off writes DATE_PROCESSED only, as the upstream's client does", async () => {
    const id = await insert("<x/>");
    expect(await mailbox({ backfillSubsystem: false }).backfill([{ msgId: id, processedAt: AT, meta }])).toEqual({ written: [id], alreadyDone: [], defects: [] });
    expect(await row(id)).toEqual({ processed: "2026-03-05 02:00:07", name: null, seq: null, sent: null, type: null, subtype: null });
  });

  describe("the upstream's layout as is: tables cminmsgs/coutmsgs in their own database, no names configured", () => {
    const database = `msgx_aodb_${process.pid}_${Date.now().toString(36)}`;
    let own: ReturnType<typeof createMailboxPool>;
    beforeAll(async () => {
      await upstream.query(`CREATE DATABASE \`${database}\``);
      const uri = new URL(MYSQL_URL);
      uri.pathname = `/${database}`;
      own = createMailboxPool({ uri: uri.toString() });
      await createMailboxTables(own);
    });
    afterAll(async () => {
      await own.end();
      await upstream.query(`DROP DATABASE IF EXISTS \`${database}\``);
    });

    it("reads, appends and backfills with the default names", async () => {
      const [r] = await upstream.query(
        `INSERT INTO \`${database}\`.cminmsgs (CMINMSGS_CLOB_MSG, CMINMSGS_DATE_RECEIVED, CMINMSGS_STATUS) VALUES ('<a/>', '2026-03-05 10:00:00', 'VALID')`,
      );
      const first = Number((r as { insertId: number }).insertId);
      const m = new MysqlMailbox(own);
      const appended = await m.append("<b/>");
      expect((await m.scan(0, 10)).map((x) => x.msgId)).toEqual([first, appended]);
      expect((await new MysqlMailbox(own, { appendedTextChars: 0 }).readRaw([first, appended])).get(appended)).toEqual({ found: true, text: "<b/>" });
      expect((await m.backfill([{ msgId: first, processedAt: AT, meta }])).written).toEqual([first]);
      const [rows] = await upstream.query(`SELECT CMINMSGS_SUBSYSTEM_TYPE AS type FROM \`${database}\`.cminmsgs WHERE CMINMSGS_ID = ?`, [first]);
      expect(rows).toEqual([{ type: "SCHD" }]);
    });

    it("names the table exactly: where the server compares table names by case, CMINMSGS is not cminmsgs", async () => {
      const [[mode]] = (await upstream.query("SELECT @@lower_case_table_names AS n")) as unknown as [{ n: number }[]];
      if (Number(mode?.n) !== 0) return; // a server that folds case (Windows, macOS) opens either
      const e = await rejection(new MysqlMailbox(own, { names: { inbound: { table: "CMINMSGS" } } }).scan(0, 1));
      expect(e.kind).toBe("CONFIG");
      expect(e.message).toContain("CMINMSGS");
    });
  });

  describe("outages surface as DEPENDENCY_UNAVAILABLE (COMMIT_UNKNOWN during the write-back's autocommit UPDATE), never as data", () => {
    it("every operation on a refused connection", async () => {
      const refused = createRefusedPool();
      try {
        const m = new MysqlMailbox(refused, { names });
        const started = Date.now();
        const errors = await Promise.all([
          rejection(m.scan(0, 10)),
          rejection(m.readRaw([1, 2])),
          rejection(m.backfill([{ msgId: 1, processedAt: AT, meta }])),
          rejection(m.append("<x/>")),
        ]);
        expect(errors.map((e) => [e.kind, e.retriable])).toEqual(Array(4).fill(["DEPENDENCY_UNAVAILABLE", true]));
        expect(errors[0]?.message).toContain("ECONNREFUSED");
        expect(Date.now() - started).toBeLessThan(5_000);
      } finally {
        await refused.end();
      }
    });

    /** Holds a row lock in the upstream's name until `release`. */
    async function holdRow(id: number): Promise<PoolConnection> {
      const holder = await upstream.getConnection();
      await holder.query("START TRANSACTION");
      await holder.query(`SELECT ${c.id} FROM ${t} WHERE ${c.id} = ? FOR UPDATE`, [id]);
      return holder;
    }
    const release = async (holder: PoolConnection) => {
      await holder.query("ROLLBACK");
      holder.release();
    };

    it("a lock wait timeout (1205) on rows the upstream holds", async () => {
      const id = await insert("<x/>");
      const holder = await holdRow(id);
      try {
        const e = await rejection(mailbox({ timeouts: { lockWaitTimeoutSec: 1 } }).backfill([{ msgId: id, processedAt: AT, meta }]));
        // The write-back is one autocommit statement: its outages are COMMIT_UNKNOWN (an outage to callers, redone by the sweep).
        expect([e.kind, e.retriable]).toEqual(["COMMIT_UNKNOWN", true]);
        expect(e.message).toContain("ER_LOCK_WAIT_TIMEOUT");
      } finally {
        await release(holder);
      }
      expect((await mailbox().backfill([{ msgId: id, processedAt: AT, meta }])).written).toEqual([id]);
    });

    it("a client-side query timeout; the timed-out connection is discarded", async () => {
      const id = await insert("<x/>");
      const holder = await holdRow(id);
      const own = createMailboxPool({ connectionLimit: 1 });
      try {
        const m = new MysqlMailbox(own, { names, timeouts: { queryTimeoutMs: 300 } });
        const e = await rejection(m.backfill([{ msgId: id, processedAt: AT, meta }]));
        expect(e.kind).toBe("COMMIT_UNKNOWN");
        expect(e.message).toContain("PROTOCOL_SEQUENCE_TIMEOUT");
        await release(holder);
        // The pool's only connection was destroyed, so this gets a fresh one and is not stuck behind the old statement.
        expect((await m.scan(0, 10)).map((r) => r.msgId)).toEqual([id]);
      } finally {
        await own.end();
      }
    });

    it("its connection killed mid-statement (KILL CONNECTION)", async () => {
      const id = await insert("<x/>");
      const holder = await holdRow(id);
      try {
        const pending = rejection(mailbox().backfill([{ msgId: id, processedAt: AT, meta }]));
        let victim: number | undefined;
        for (let i = 0; i < 500 && victim === undefined; i++) {
          const [rows] = await upstream.query(
            "SELECT ID AS id FROM information_schema.PROCESSLIST WHERE INFO LIKE ? AND ID <> CONNECTION_ID()",
            [`UPDATE ${t}%`],
          );
          victim = (rows as { id: number }[]).find(() => true)?.id;
          if (victim === undefined) await new Promise((r) => setTimeout(r, 20));
        }
        await upstream.query(`KILL CONNECTION ${Number(victim)}`);
        const e = await pending;
        expect(e.kind).toBe("COMMIT_UNKNOWN");
      } finally {
        await release(holder);
      }
      expect((await mailbox().backfill([{ msgId: id, processedAt: AT, meta }])).written).toEqual([id]);
    });
  });

  it("hands ids over as JS numbers although the pool uses supportBigNumbers", async () => {
    const id = await insert("<x/>");
    expect((await mailbox().scan(0, 5)).map((r) => typeof r.msgId)).toEqual(["number"]);
    expect([...(await mailbox().readRaw([id])).keys()]).toEqual([id]);
  });
});
