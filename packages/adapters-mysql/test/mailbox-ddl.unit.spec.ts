import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { mailboxDdl } from "@msgx/adapters-mysql";

/** `name type` per column line of a CREATE TABLE, in order, without backticks. */
const columnsOf = (statement: string): string[] =>
  statement
    .split("\n")
    .slice(1, -2)
    .map((line) => line.trim().replace(/,$/, "").replaceAll("`", ""));

describe("mailbox DDL", () => {
  it("sql/mailbox.ddl.sql is exactly what createMailboxTables runs for the default names", () => {
    const file = readFileSync(new URL("../sql/mailbox.ddl.sql", import.meta.url), "utf8");
    const statements = file
      .split("\n")
      .filter((line) => !line.startsWith("--"))
      .join("\n")
      .split(";")
      .map((s) => s.trim())
      .filter((s) => s !== "");
    expect(statements).toEqual(mailboxDdl());
  });

  it("is the upstream's layout (WIRE.md): lowercase tables, prefixed columns, the stated types and nullability", () => {
    const [inbound, outbound] = mailboxDdl();
    expect(inbound).toMatch(/^CREATE TABLE IF NOT EXISTS `cminmsgs` \(/);
    expect(columnsOf(inbound!)).toEqual([
      "CMINMSGS_ID BIGINT NOT NULL AUTO_INCREMENT",
      "CMINMSGS_CLOB_MSG MEDIUMTEXT NOT NULL",
      "CMINMSGS_DATE_RECEIVED DATETIME NULL",
      "CMINMSGS_DATE_PROCESSED DATETIME NULL",
      "CMINMSGS_SUBSYSTEM_NAME VARCHAR(4) NULL",
      "CMINMSGS_SUBSYSTEM_SEQUENCE MEDIUMINT NULL",
      "CMINMSGS_SUBSYSTEM_DATE_SENT DATETIME NULL",
      "CMINMSGS_SUBSYSTEM_TYPE VARCHAR(4) NULL",
      "CMINMSGS_SUBSYSTEM_SUBTYPE VARCHAR(4) NULL",
      "CMINMSGS_STATUS VARCHAR(20) NULL",
    ]);
    expect(inbound).toContain("PRIMARY KEY (`CMINMSGS_ID`)");
    expect(outbound).toMatch(/^CREATE TABLE IF NOT EXISTS `coutmsgs` \(/);
    expect(columnsOf(outbound!)).toEqual([
      "COUTMSGS_ID BIGINT NOT NULL AUTO_INCREMENT",
      "COUTMSGS_CLOB_MSG MEDIUMTEXT NOT NULL",
      "COUTMSGS_DATE_INSERTED DATETIME NOT NULL",
      "COUTMSGS_DATE_SENT DATETIME NULL",
      "ROUTINGID VARCHAR(23) NOT NULL",
      "COUTMSGS_TRUEFALS_GROUP TINYINT NOT NULL",
      "COUTMSGS_NO_MESSAGES INT NULL",
      "COUTMSGS_GROUP_ORDER INT NULL",
      "COUTMSGS_GROUP_ID BIGINT NULL",
      "COUTMSGS_FINAL_GROUP_IND TINYINT NOT NULL",
      "COUTMSGS_ACK_REQD TINYINT NOT NULL",
      "COUTMSGS_ACK_RESEND_TIMES INT NULL",
      "COUTMSGS_ACK_DATE_RECV DATETIME NULL",
      "COUTMSGS_ENCRYPT TINYINT NOT NULL",
      "COUTMSGS_ERROR TINYINT NOT NULL",
    ]);
    expect(outbound).toContain("PRIMARY KEY (`COUTMSGS_ID`)");
  });

  it("takes a renamed map: the same types under the configured names, quoted", () => {
    const [inbound, outbound] = mailboxDdl({
      inbound: { table: "up.in_box", columns: { id: "msg_no", status: "KEY" } },
      outbound: { table: "out_box", columns: { routingId: "route" } },
    });
    expect(inbound).toMatch(/^CREATE TABLE IF NOT EXISTS `up`\.`in_box` \(/);
    expect(columnsOf(inbound!)[0]).toBe("msg_no BIGINT NOT NULL AUTO_INCREMENT");
    expect(columnsOf(inbound!).at(-1)).toBe("KEY VARCHAR(20) NULL");
    expect(inbound).toContain("`KEY` VARCHAR(20) NULL");
    expect(inbound).toContain("PRIMARY KEY (`msg_no`)");
    expect(columnsOf(outbound!)).toContain("route VARCHAR(23) NOT NULL");
  });

  it("refuses anything that is not a plain identifier", () => {
    expect(() => mailboxDdl({ inbound: { table: "cminmsgs; DROP TABLE x" } })).toThrow(RangeError);
    expect(() => mailboxDdl({ outbound: { columns: { error: "ERROR`, x INT" } } })).toThrow(/outbound\.columns\.error/);
  });
});
