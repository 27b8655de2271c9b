import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Pool } from "mysql2/promise";
import { describeOutboundMailboxContract } from "@msgx/core/testing";
import { createMailboxTables, dropMailboxTables, MysqlOutboundMailbox, quoteMailboxNames, type MailboxNames } from "@msgx/adapters-mysql";
import { createMailboxPool, createRefusedPool, createUpstreamPool, mysqlGate, NAME_MAPS } from "./mysql-test-env.js";

const gate = await mysqlGate("adapters-mysql: outbound mailbox (coutmsgs)");

const rqfd = (seqn: number) =>
  `<MSG><META><SNDR>MSGX</SNDR><SEQN>${seqn}</SEQN><DTTM>20260305020000</DTTM><TYPE>RQFD</TYPE><STYP>NONE</STYP></META>` +
  `<RQFD><STDB>05MAR260000</STDB><STDE>06MAR260000</STDE></RQFD></MSG>`;

describe.skipIf(!gate.available).each(NAME_MAPS)("MysqlOutboundMailbox against MariaDB, on $layout", ({ unique }) => {
  let pool: ReturnType<typeof createMailboxPool>;
  let upstream: Pool;
  let names: MailboxNames;
  /** The upstream's side of the outbound table, quoted. */
  let out: ReturnType<typeof quoteMailboxNames>["outbound"];

  beforeAll(() => {
    pool = createMailboxPool();
    upstream = createUpstreamPool();
  });
  afterAll(async () => {
    await pool.end();
    await upstream.end();
  });

  describeOutboundMailboxContract("MysqlOutboundMailbox", async () => {
    const fresh = unique();
    await createMailboxTables(pool, fresh);
    return { outbound: new MysqlOutboundMailbox(pool, { names: fresh }), close: () => dropMailboxTables(pool, fresh) };
  });

  describe("adapter specifics", () => {
    beforeEach(async () => {
      names = unique();
      out = quoteMailboxNames(names).outbound;
      await createMailboxTables(pool, names);
    });
    afterEach(async () => {
      await dropMailboxTables(pool, names);
    });

    it("inserts a request with every NOT NULL column the upstream's table requires, the flags 0; visible to the upstream at once", async () => {
      const outbound = new MysqlOutboundMailbox(pool, { names });
      const before = Date.now();
      const id = await outbound.insert(rqfd(1), "VIEWRQFD");
      const c = out.columns;
      const [rows] = await upstream.query(
        `SELECT ${c.clobMsg} AS text, ${c.routingId} AS routing, ${c.dateInserted} IS NOT NULL AS inserted, ${c.dateSent} AS sent, ` +
          `${c.truefalsGroup} AS truefalsGroup, ${c.finalGroupInd} AS finalGroupInd, ${c.ackReqd} AS ackReqd, ${c.encrypt} AS encrypt, ${c.error} AS error, ` +
          `${c.noMessages} AS noMessages, ${c.groupOrder} AS groupOrder, ${c.groupId} AS groupId, ${c.ackResendTimes} AS ackResendTimes, ${c.ackDateRecv} AS ackDateRecv ` +
          `FROM ${out.table} WHERE ${c.id} = ?`,
        [id],
      );
      expect(rows).toEqual([
        {
          text: rqfd(1),
          routing: "VIEWRQFD",
          inserted: 1,
          sent: null,
          truefalsGroup: 0,
          finalGroupInd: 0,
          ackReqd: 0,
          encrypt: 0,
          error: 0,
          noMessages: null,
          groupOrder: null,
          groupId: null,
          ackResendTimes: null,
          ackDateRecv: null,
        },
      ]);
      const [found] = await outbound.find({ ids: [id] });
      expect(found).toMatchObject({ id, routingId: "VIEWRQFD", rawXml: rqfd(1), sentAt: null, ack: { status: null, text: null, at: null } });
      // DATE_INSERTED is kept to the second.
      expect((found?.insertedAt ?? 0) - before).toBeGreaterThanOrEqual(-1_000);
      expect((found?.insertedAt ?? 0) - before).toBeLessThan(5_000);
    });

    it("takes a routing id as long as the upstream's column (23 characters)", async () => {
      const outbound = new MysqlOutboundMailbox(pool, { names });
      const routing = "VIEWRQFD".padEnd(23, "X");
      const id = await outbound.insert(rqfd(4), routing);
      expect((await outbound.find({ ids: [id] }))[0]?.routingId).toBe(routing);
    });

    it("finds a row by exactly what was inserted within the second it was inserted (DATE_INSERTED has no fraction)", async () => {
      const outbound = new MysqlOutboundMailbox(pool, { names });
      const since = Date.now();
      const a = await outbound.insert(rqfd(7), "VIEWRQFD");
      expect((await outbound.find({ routingId: "VIEWRQFD", rawXml: rqfd(7), insertedSince: since })).map((r) => r.id)).toEqual([a]);
      expect(await outbound.find({ routingId: "VIEWRQFD", rawXml: rqfd(7), insertedSince: Date.now() + 60_000 })).toEqual([]);
    });

    it("reads DATE_SENT and the acknowledgement (ACK_DATE_RECV, the ERROR flag) in the upstream's zone", async () => {
      const outbound = new MysqlOutboundMailbox(pool, { names, upstreamTimeZone: "+08:00" });
      const [acked, failed] = [await outbound.insert(rqfd(2), "VIEWRQFD"), await outbound.insert(rqfd(3), "VIEWRQFD")];
      const c = out.columns;
      await upstream.query(`UPDATE ${out.table} SET ${c.dateSent} = '2026-03-05 10:00:01', ${c.ackDateRecv} = '2026-03-05 10:00:02' WHERE ${c.id} = ?`, [acked]);
      await upstream.query(`UPDATE ${out.table} SET ${c.dateSent} = '2026-03-05 10:00:01', ${c.error} = 1 WHERE ${c.id} = ?`, [failed]);
      const [a, f] = await outbound.find({ ids: [acked, failed] });
      expect(a?.sentAt).toBe(Date.UTC(2026, 2, 5, 2, 0, 1));
      expect(a?.ack).toEqual({ status: "ACKED", text: null, at: Date.UTC(2026, 2, 5, 2, 0, 2) });
      expect(f?.ack).toEqual({ status: "ERROR", text: null, at: null });
    });

    it("fails as DEPENDENCY_UNAVAILABLE when the server is unreachable, never as 'not found'", async () => {
      const refused = createRefusedPool();
      try {
        const outbound = new MysqlOutboundMailbox(refused, { names });
        await expect(outbound.insert(rqfd(3), "VIEWRQFD")).rejects.toMatchObject({ kind: "DEPENDENCY_UNAVAILABLE" });
        await expect(outbound.find({ routingId: "VIEWRQFD", rawXml: rqfd(3) })).rejects.toMatchObject({ kind: "DEPENDENCY_UNAVAILABLE" });
      } finally {
        await refused.end();
      }
    });
  });
});
