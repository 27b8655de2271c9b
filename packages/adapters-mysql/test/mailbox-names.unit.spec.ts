import { describe, expect, it } from "vitest";
import { DEFAULT_MAILBOX_NAMES, mailboxNameProblems, MysqlMailbox, MysqlOutboundMailbox, quoteMailboxNames, resolveMailboxNames } from "@msgx/adapters-mysql";

describe("mailbox names", () => {
  it("default to the upstream's DDL: lowercase tables, every column prefixed with its table but ROUTINGID", () => {
    const { inbound, outbound } = resolveMailboxNames();
    expect([inbound.table, outbound.table]).toEqual(["cminmsgs", "coutmsgs"]);
    expect(Object.values(inbound.columns).every((c) => c.startsWith("CMINMSGS_"))).toBe(true);
    expect(Object.entries(outbound.columns).filter(([, c]) => !c.startsWith("COUTMSGS_"))).toEqual([["routingId", "ROUTINGID"]]);
    expect(Object.keys(inbound.columns)).toHaveLength(10);
    expect(Object.keys(outbound.columns)).toHaveLength(15);
  });

  it("merge a partial map over the defaults", () => {
    const names = resolveMailboxNames({ inbound: { table: "aodbinterface.cminmsgs", columns: { clobMsg: "BODY" } }, outbound: { columns: { routingId: "ROUTE" } } });
    expect(names.inbound.table).toBe("aodbinterface.cminmsgs");
    expect(names.inbound.columns).toEqual({ ...DEFAULT_MAILBOX_NAMES.inbound.columns, clobMsg: "BODY" });
    expect(names.outbound).toEqual({ table: "coutmsgs", columns: { ...DEFAULT_MAILBOX_NAMES.outbound.columns, routingId: "ROUTE" } });
  });

  it("quote every name for SQL, a schema-qualified table part by part", () => {
    const q = quoteMailboxNames(resolveMailboxNames({ inbound: { table: "aodbinterface.cminmsgs" } }));
    expect(q.inbound.table).toBe("`aodbinterface`.`cminmsgs`");
    expect(q.inbound.columns.id).toBe("`CMINMSGS_ID`");
    expect(q.outbound.columns.routingId).toBe("`ROUTINGID`");
  });

  it("refuse every name that is not a plain identifier, each at its path", () => {
    const bad = {
      inbound: { table: "a.b.c", columns: { ...DEFAULT_MAILBOX_NAMES.inbound.columns, id: "1ID", clobMsg: "CLOB MSG", status: "" } },
      outbound: { table: "coutmsgs`; DROP TABLE x; --", columns: { ...DEFAULT_MAILBOX_NAMES.outbound.columns, error: "E".repeat(65) } },
    };
    expect(mailboxNameProblems(bad).map((p) => p.path.join("."))).toEqual([
      "inbound.table",
      "inbound.columns.id",
      "inbound.columns.clobMsg",
      "inbound.columns.status",
      "outbound.table",
      "outbound.columns.error",
    ]);
    expect(() => resolveMailboxNames({ inbound: { columns: { clobMsg: "CLOB`MSG" } } })).toThrow(/inbound\.columns\.clobMsg: not a plain column name/);
    expect(() => resolveMailboxNames({ outbound: { table: "" } })).toThrow(/outbound\.table: not a plain table name/);
  });

  it("refuse one column for two roles of a table, whatever its case (MySQL compares column names without case)", () => {
    expect(() => resolveMailboxNames({ inbound: { columns: { dateProcessed: "cminmsgs_date_received" } } })).toThrow(
      /inbound\.columns\.dateProcessed: "cminmsgs_date_received" is already the dateReceived column/,
    );
    // The same name in both tables is fine.
    expect(resolveMailboxNames({ inbound: { columns: { id: "ID" } }, outbound: { columns: { id: "ID" } } }).outbound.columns.id).toBe("ID");
  });

  it("are checked when a mailbox is built, before any statement", () => {
    const pool = { getConnection: () => Promise.reject(new Error("no statement may run")) };
    expect(() => new MysqlMailbox(pool, { names: { inbound: { columns: { status: "STATUS OR 1=1" } } } })).toThrow(RangeError);
    expect(() => new MysqlOutboundMailbox(pool, { names: { outbound: { table: "x;y" } } })).toThrow(RangeError);
  });
});
