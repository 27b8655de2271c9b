/**
 * The request round trip on the real shared mailbox (MariaDB): the runner writes the RQFD to
 * `coutmsgs`, a simulated upstream picks the row up and answers into `cminmsgs`, the runner's
 * intake and pump apply the answer and close the request; an unsolicited RESP is skipped. The
 * runner is pointed at renamed tables and columns through its config (`mysql.inbound`,
 * `mysql.outbound`). Then the coordinator's crash recovery against the upstream's `coutmsgs`: no
 * blind resend.
 */
import mysql, { type Pool, type RowDataPacket } from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMailboxTables, dropMailboxTables, mailboxPoolOptions, MysqlOutboundMailbox, quoteMailboxNames, type MailboxNames } from "@msgx/adapters-mysql";
import { gateService, InMemoryPipelineStore, ManualClock } from "@msgx/core/testing";
import { silentLogger } from "@msgx/core";
import { SimulatedCrashMarker } from "../../core/src/runtime/simulated-crash.js";
import { InMemoryRequestStore } from "../../core/src/requests/in-memory-request-store.js";
import { describeOutboundMailboxContract } from "../../core/src/ports/outbound-mailbox.contract.js";
import { RequestCoordinator, type RequestFailpoint } from "../../core/src/requests/request-coordinator.js";
import type { RequestRecord } from "../../core/src/requests/request-record.js";
import { httpRequestAdmin } from "../src/commands/request-commands.js";
import { namesOverrides, uniqueRenamedNames, uniqueUpstreamNames } from "./mysql-names.js";
import { arptResp, eventually, replyDttm, schdResp, startInProcess, type InProcessRunner } from "./requests-world.js";

const MYSQL_URL = process.env["MSGX_TEST_MYSQL_URL"] ?? "mysql://root@127.0.0.1:3306/test";
const gate = await gateService("MariaDB", "runner: upstream requests on the real mailbox", async () => {
  const c = await mysql.createConnection({ uri: MYSQL_URL, connectTimeout: 3_000 });
  await c.end();
});


describe.skipIf(!gate.available)("upstream requests on MariaDB", () => {
  let upstream: Pool;
  beforeAll(() => {
    upstream = mysql.createPool({ uri: MYSQL_URL, connectionLimit: 4 });
  });
  afterAll(() => upstream.end());

  const rows = async <T>(query: string, params: unknown[] = []) => (await upstream.query<RowDataPacket[]>(query, params))[0] as unknown as T[];
  /** The upstream answers into its inbound table; returns the new mailbox id. */
  const answer = async (names: MailboxNames, xml: string) => {
    const { table, columns: c } = quoteMailboxNames(names).inbound;
    const [r] = await upstream.query(`INSERT INTO ${table} (${c.clobMsg}, ${c.dateReceived}, ${c.status}) VALUES (?, UTC_TIMESTAMP(), 'VALID')`, [xml]);
    return Number((r as { insertId: number }).insertId);
  };

  describe("through the runner (embedded state, the mailbox on MariaDB under a renamed map)", () => {
    let names: MailboxNames;
    let inbound: ReturnType<typeof quoteMailboxNames>["inbound"];
    let outbound: ReturnType<typeof quoteMailboxNames>["outbound"];
    let r: InProcessRunner;
    beforeAll(async () => {
      names = uniqueRenamedNames("rq");
      ({ inbound, outbound } = quoteMailboxNames(names));
      await createMailboxTables(upstream as never, names);
      r = await startInProcess({ "mysql.url": MYSQL_URL, ...namesOverrides(names) });
    });
    afterAll(async () => {
      await r?.stop();
      await dropMailboxTables(upstream as never, names);
    });

    it("the RQFD row appears in coutmsgs; the upstream picks it up and answers; the snapshot is applied and the request DONE", async () => {
      const api = httpRequestAdmin(r.url, undefined);
      const request = await api.schedule("2026-03-06T00:00", "2026-03-06T23:59", "e2e");
      expect(request.status).toBe("SENT");
      const c = outbound.columns;
      const out = await rows<{ id: number; routing: string; text: string; sent: Date | null; flags: string }>(
        `SELECT ${c.id} AS id, ${c.routingId} AS routing, ${c.clobMsg} AS text, ${c.dateSent} AS sent, ` +
          `CONCAT(${c.truefalsGroup}, ${c.finalGroupInd}, ${c.ackReqd}, ${c.encrypt}, ${c.error}) AS flags FROM ${outbound.table}`,
      );
      expect(out).toEqual([{ id: request.outboundId, routing: "VIEWRQFD", text: request.rawXml, sent: null, flags: "00000" }]);
      expect(out[0]!.text).toContain("<TYPE>RQFD</TYPE><STYP>NONE</STYP></META><RQFD><STDB>06MAR260000</STDB><STDE>06MAR262359</STDE></RQFD>");

      // The upstream's sender takes the row: the request is WAITING.
      await upstream.query(`UPDATE ${outbound.table} SET ${c.dateSent} = UTC_TIMESTAMP() WHERE ${c.id} = ?`, [request.outboundId]);
      await eventually(async () => ((x) => (x?.status === "WAITING" ? x : undefined))(await api.get(request.requestId)), "the request WAITING");

      const unsolicitedBefore = await answer(names, schdResp(1, "20260305080000", "900301", "06MAR260930"));
      const reply = await answer(names, schdResp(2, replyDttm(), "900201", "06MAR260930"));
      const done = await eventually(async () => ((x) => (x?.status === "DONE" ? x : undefined))(await api.get(request.requestId)), "the request DONE");
      expect(done.match).toMatchObject({ rule: "fallback", msgId: reply });
      expect((await (await fetch(new URL("/admin/flights/900201", r.url))).json()) as unknown).toMatchObject({ flid: "900201", fields: { SODT: "2026-03-06T09:30" } });
      const stale = (await (await fetch(new URL(`/admin/messages/${unsolicitedBefore}`, r.url))).json()) as { status: string; reason: string };
      expect(stale).toMatchObject({ status: "SKIPPED", reason: "no-request" });

      // A late, unsolicited RESP after the request closed: skipped, nothing changes, still backfilled.
      const late = await answer(names, schdResp(3, replyDttm(), "900202", "06MAR261030"));
      const lateRecord = await eventually(
        async () => ((m) => (m.status === "SKIPPED" ? m : undefined))((await (await fetch(new URL(`/admin/messages/${late}`, r.url))).json()) as { status: string; reason: string }),
        "the late RESP",
      );
      expect(lateRecord.reason).toBe("no-request");
      expect(await api.get(request.requestId)).toEqual(done);
      expect((await fetch(new URL("/admin/flights/900202", r.url))).status).toBe(404);
      const processed = await eventually(async () => {
        const i = inbound.columns;
        const got = await rows<{ id: number; processed: Date | null; type: string | null }>(
          `SELECT ${i.id} AS id, ${i.dateProcessed} AS processed, ${i.subsystemType} AS type FROM ${inbound.table} ORDER BY ${i.id}`,
        );
        return got.every((x) => x.processed !== null) ? got : undefined;
      }, "every mailbox row backfilled");
      expect(processed.map((x) => [x.id, x.type])).toEqual([
        [unsolicitedBefore, "SCHD"],
        [reply, "SCHD"],
        [late, "SCHD"],
      ]);
    });

    it("RQRD: coutmsgs row with ROUTINGID VIEWRQRD; the reference reply lands in REF_MASTER", async () => {
      const api = httpRequestAdmin(r.url, undefined);
      const request = await api.reference("ARPT", "e2e");
      const c = outbound.columns;
      const [row] = await rows<{ routing: string; text: string }>(`SELECT ${c.routingId} AS routing, ${c.clobMsg} AS text FROM ${outbound.table} WHERE ${c.id} = ?`, [
        request.outboundId,
      ]);
      expect(row).toEqual({ routing: "VIEWRQRD", text: request.rawXml });
      await answer(names, arptResp(4, replyDttm()));
      await eventually(async () => ((x) => (x?.status === "DONE" ? x : undefined))(await api.get(request.requestId)), "the RQRD DONE");
      expect((await api.referenceList({ rtype: "ARPT", limit: 10 })).map((e) => e.rkey)).toEqual(["CAN", "PEK"]);
    });
  });

  describeOutboundMailboxContract("MysqlOutboundMailbox (MariaDB, fresh tables per test)", async () => {
    const pool = mysql.createPool({ uri: MYSQL_URL, ...mailboxPoolOptions });
    const names = uniqueUpstreamNames("rq");
    await createMailboxTables(pool as never, names);
    return {
      outbound: new MysqlOutboundMailbox(pool as never, { names }),
      close: async () => {
        await dropMailboxTables(pool as never, names);
        await pool.end();
      },
    };
  });

  describe("coordinator recovery against the upstream's coutmsgs", () => {
    let names: MailboxNames;
    let pool: Pool;
    beforeAll(async () => {
      names = uniqueUpstreamNames("rq");
      pool = mysql.createPool({ uri: MYSQL_URL, ...mailboxPoolOptions });
      await createMailboxTables(pool as never, names);
    });
    afterAll(async () => {
      await dropMailboxTables(pool as never, names);
      await pool.end();
    });

    it("a crash after the insert committed: the restarted coordinator finds the row and sends nothing twice", async () => {
      const clock = new ManualClock(Date.now());
      const requests = new InMemoryRequestStore(new InMemoryPipelineStore(clock));
      const outbound = new MysqlOutboundMailbox(pool as never, { names });
      let crashAt: RequestFailpoint | undefined = "request.after-insert";
      const coordinator = () =>
        new RequestCoordinator({
          store: requests,
          outbound,
          clock,
          logger: silentLogger,
          failpoint: (p) => {
            if (p === crashAt) {
              crashAt = undefined;
              throw new SimulatedCrashMarker(p);
            }
          },
        });
      await expect(coordinator().request({ kind: "RQFD", from: "2026-03-06T00:00", to: "2026-03-06T23:59" }, "e2e")).rejects.toBeInstanceOf(SimulatedCrashMarker);
      const [registered] = await requests.open();
      expect(registered).toMatchObject({ status: "REGISTERED", sendAttempts: 1, outboundId: null });
      const restarted = coordinator();
      expect((await restarted.step()).sent).toEqual([]);
      clock.advance(120_000);
      expect((await restarted.step()).sent).toEqual([registered!.requestId]);
      const { table, columns: c } = quoteMailboxNames(names).outbound;
      const out = await rows<{ id: number; text: string }>(`SELECT ${c.id} AS id, ${c.clobMsg} AS text FROM ${table}`);
      expect(out).toHaveLength(1);
      const sent = (await requests.get(registered!.requestId)) as RequestRecord;
      expect(sent).toMatchObject({ status: "SENT", outboundId: out[0]!.id, sendAttempts: 2 });
      expect(out[0]!.text).toBe(sent.rawXml);
    });
  });
});
