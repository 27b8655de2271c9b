import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Pool } from "mysql2/promise";
import { createMailboxTables, dropMailboxTables, MysqlOutboundMailbox, type MailboxTables } from "@msgx/adapters-mysql";
import { createMailboxPool, createRefusedPool, createUpstreamPool, mysqlGate, uniqueTables } from "./mysql-test-env.js";

const gate = await mysqlGate("adapters-mysql: outbound mailbox (COUTMSGS)");

const rqfd = (seqn: number) =>
  `<MSG><META><SNDR>MSGX</SNDR><SEQN>${seqn}</SEQN><DTTM>20260305020000</DTTM><TYPE>RQFD</TYPE><STYP>NONE</STYP></META>` +
  `<RQFD><STDB>05MAR260000</STDB><STDE>06MAR260000</STDE></RQFD></MSG>`;

describe.skipIf(!gate.available)("MysqlOutboundMailbox against MariaDB", () => {
  let pool: ReturnType<typeof createMailboxPool>;
  let upstream: Pool;
  let tables: MailboxTables;

  beforeAll(() => {
    pool = createMailboxPool();
    upstream = createUpstreamPool();
  });
  afterAll(async () => {
    await pool.end();
    await upstream.end();
  });
  beforeEach(async () => {
    tables = uniqueTables();
    await createMailboxTables(pool, tables);
  });
  afterEach(async () => {
    await dropMailboxTables(pool, tables);
  });

  it("inserts a request and returns its committed id; the row is visible to the upstream at once", async () => {
    const out = new MysqlOutboundMailbox(pool, { tables });
    const before = Date.now();
    const id = await out.insert(rqfd(1), "VIEWRQFD");
    const [rows] = await upstream.query(`SELECT CLOB_MSG AS text, ROUTINGID AS routing FROM \`${tables.outbound}\` WHERE ID = ?`, [id]);
    expect(rows).toEqual([{ text: rqfd(1), routing: "VIEWRQFD" }]);
    const [found] = await out.find({ ids: [id] });
    expect(found).toMatchObject({ id, routingId: "VIEWRQFD", rawXml: rqfd(1), sentAt: null, ack: { status: null, text: null, at: null } });
    expect(Math.abs((found?.insertedAt ?? 0) - before)).toBeLessThan(5_000);
  });

  it("finds a row by exactly what was inserted (recovery without a blind resend)", async () => {
    const out = new MysqlOutboundMailbox(pool, { tables });
    const since = Date.now() - 1_000;
    const a = await out.insert(rqfd(7), "VIEWRQFD");
    await out.insert(rqfd(8), "VIEWRQFD");
    await out.insert(rqfd(7), "VIEWRQRD");
    expect((await out.find({ routingId: "VIEWRQFD", rawXml: rqfd(7), insertedSince: since })).map((r) => r.id)).toEqual([a]);
    // Collation would call these equal; the content match is exact.
    expect(await out.find({ routingId: "VIEWRQFD", rawXml: rqfd(7).toLowerCase() })).toEqual([]);
    expect(await out.find({ routingId: "VIEWRQFD", rawXml: rqfd(7), insertedSince: Date.now() + 60_000 })).toEqual([]);
    expect(await out.find({ routingId: "VIEWRQFD", rawXml: rqfd(9) })).toEqual([]);
  });

  it("reads the upstream's DATE_SENT and acknowledgement in the upstream's zone", async () => {
    const out = new MysqlOutboundMailbox(pool, { tables, upstreamTimeZone: "+08:00" });
    const id = await out.insert(rqfd(2), "VIEWRQFD");
    await upstream.query(
      `UPDATE \`${tables.outbound}\` SET DATE_SENT = '2026-03-05 10:00:01', ACK_STATUS = 'OK', ACK_TEXT = 'accepted', DATE_ACK = '2026-03-05 10:00:02' WHERE ID = ?`,
      [id],
    );
    const [row] = await out.find({ ids: [id] });
    expect(row?.sentAt).toBe(Date.UTC(2026, 2, 5, 2, 0, 1));
    expect(row?.ack).toEqual({ status: "OK", text: "accepted", at: Date.UTC(2026, 2, 5, 2, 0, 2) });
  });

  it("fails as DEPENDENCY_UNAVAILABLE when the server is unreachable, never as 'not found'", async () => {
    const refused = createRefusedPool();
    try {
      const out = new MysqlOutboundMailbox(refused, { tables });
      await expect(out.insert(rqfd(3), "VIEWRQFD")).rejects.toMatchObject({ kind: "DEPENDENCY_UNAVAILABLE" });
      await expect(out.find({ routingId: "VIEWRQFD", rawXml: rqfd(3) })).rejects.toMatchObject({ kind: "DEPENDENCY_UNAVAILABLE" });
    } finally {
      await refused.end();
    }
  });
});
