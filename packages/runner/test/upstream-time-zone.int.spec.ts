/**
 * `mysql.upstreamTimeZone` reaches both mailboxes of the runner: a message appended through the
 * ingress gets its `DATE_RECEIVED` in the upstream's zone, and it is read back as the right
 * instant (the record's `receivedAt`), so received times are not off by the zone's offset.
 */
import mysql, { type Pool, type RowDataPacket } from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMailboxTables, dropMailboxTables, quoteMailboxNames, type MailboxNames } from "@msgx/adapters-mysql";
import { gateService } from "@msgx/core/testing";
import { namesOverrides, uniqueUpstreamNames } from "./mysql-names.js";
import { eventually, startInProcess, type InProcessRunner } from "./requests-world.js";

const MYSQL_URL = process.env["MSGX_TEST_MYSQL_URL"] ?? "mysql://root@127.0.0.1:3306/test";
const gate = await gateService("MariaDB", "runner: the upstream's time zone on the real mailbox", async () => {
  const c = await mysql.createConnection({ uri: MYSQL_URL, connectTimeout: 3_000 });
  await c.end();
});

const ldm = (seqn: number) =>
  `<MSG><META><SNDR>AODB</SNDR><SEQN>${seqn}</SEQN><DTTM>20260305083000</DTTM><TYPE>SYSM</TYPE><STYP>LDM</STYP></META><SYSM/></MSG>`;

describe.skipIf(!gate.available)("mysql.upstreamTimeZone", () => {
  let upstream: Pool;
  let names: MailboxNames;
  let r: InProcessRunner;
  beforeAll(async () => {
    upstream = mysql.createPool({ uri: MYSQL_URL, connectionLimit: 2 });
    names = uniqueUpstreamNames("tz");
    await createMailboxTables(upstream as never, names);
    r = await startInProcess({ "mysql.url": MYSQL_URL, ...namesOverrides(names), "mysql.upstreamTimeZone": "+08:00" });
  });
  afterAll(async () => {
    await r?.stop();
    await dropMailboxTables(upstream as never, names);
    await upstream.end();
  });

  it("writes DATE_RECEIVED of an ingress append at +08:00 and reads it back as the same instant", async () => {
    const before = Date.now();
    const res = await fetch(new URL("/cminmsgs/send", r.url), { method: "POST", headers: { "content-type": "application/xml" }, body: ldm(1) });
    expect(res.status).toBe(200);
    const id = Number(await res.text());
    const after = Date.now();
    const { table, columns: c } = quoteMailboxNames(names).inbound;
    const [rows] = await upstream.query<RowDataPacket[]>(
      `SELECT DATE_FORMAT(${c.dateReceived}, '%Y-%m-%dT%H:%i:%s.%f') AS received FROM ${table} WHERE ${c.id} = ?`,
      [id],
    );
    // The column holds local time at +08:00 (to the second): as if it were UTC, it lies 8 hours ahead.
    const asIfUtc = Date.parse(`${String(rows[0]!["received"]).slice(0, 23)}Z`);
    expect(asIfUtc - 8 * 3_600_000).toBeGreaterThanOrEqual(before - 1_000);
    expect(asIfUtc - 8 * 3_600_000).toBeLessThanOrEqual(after + 1_000);
    // Read back by the intake in the same zone (the record is created with it): the record's receivedAt is the real instant.
    const record = await eventually(async () => (await r.parts.store.get(id)) ?? undefined, `message ${id} taken in by the intake`);
    expect(record.receivedAt).toBeGreaterThanOrEqual(before - 1_000);
    expect(record.receivedAt).toBeLessThanOrEqual(after + 1_000);
  });
});
