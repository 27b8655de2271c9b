import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { mailboxDdl } from "@msgx/adapters-mysql";

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

  it("quotes configured names and refuses anything that is not a plain identifier", () => {
    expect(mailboxDdl({ inbound: "up.CMINMSGS", outbound: "COUTMSGS" })[0]).toContain("`up`.`CMINMSGS`");
    expect(() => mailboxDdl({ inbound: "CMINMSGS; DROP TABLE x", outbound: "COUTMSGS" })).toThrow(RangeError);
  });
});
