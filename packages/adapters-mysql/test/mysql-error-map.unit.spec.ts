import { describe, expect, it } from "vitest";
import { MsgxError } from "@msgx/core";
import { MYSQL_ERROR_RULES, toMsgxError } from "@msgx/adapters-mysql";

const driverError = (fields: Record<string, unknown>, message = "driver says no"): Error => Object.assign(new Error(message), fields);

describe("mysql-error-map", () => {
  it.each([
    [{ code: "ECONNREFUSED", errno: -111 }, "DEPENDENCY_UNAVAILABLE"],
    [{ code: "ECONNRESET" }, "DEPENDENCY_UNAVAILABLE"],
    [{ code: "ETIMEDOUT" }, "DEPENDENCY_UNAVAILABLE"],
    [{ code: "PROTOCOL_CONNECTION_LOST", fatal: true }, "DEPENDENCY_UNAVAILABLE"],
    [{ code: "PROTOCOL_SEQUENCE_TIMEOUT" }, "DEPENDENCY_UNAVAILABLE"],
    [{ code: "ER_SERVER_SHUTDOWN", errno: 1053, sqlState: "08S01" }, "DEPENDENCY_UNAVAILABLE"],
    [{ code: "ER_CON_COUNT_ERROR", errno: 1040, sqlState: "08004" }, "DEPENDENCY_UNAVAILABLE"],
    [{ code: "ER_LOCK_WAIT_TIMEOUT", errno: 1205, sqlState: "HY000" }, "DEPENDENCY_UNAVAILABLE"],
    [{ code: "ER_CONNECTION_KILLED", errno: 1927, sqlState: "70100" }, "DEPENDENCY_UNAVAILABLE"],
    [{ code: "ER_LOCK_DEADLOCK", errno: 1213, sqlState: "40001" }, "CONFLICT"],
    [{ code: "ER_NO_SUCH_TABLE", errno: 1146, sqlState: "42S02" }, "CONFIG"],
    [{ code: "ER_ACCESS_DENIED_ERROR", errno: 1045, sqlState: "28000" }, "CONFIG"],
    [{ code: "ER_SOMETHING_NEW", errno: 9999, sqlState: "08001" }, "DEPENDENCY_UNAVAILABLE"],
    [{ code: "ER_SOMETHING_NEW", errno: 9998, sqlState: "40002" }, "CONFLICT"],
    [{ code: "ER_DATA_TOO_LONG", errno: 1406, sqlState: "22001" }, "INFRA"],
    [{ code: "ER_PARSE_ERROR", errno: 1064, sqlState: "42000" }, "INFRA"],
    [{ fatal: true }, "DEPENDENCY_UNAVAILABLE"],
    [{}, "INFRA"],
  ])("%o → %s", (fields, kind) => {
    const cause = driverError(fields);
    const e = toMsgxError(cause, "mailbox scan");
    expect(e).toBeInstanceOf(MsgxError);
    expect(e.kind).toBe(kind);
    expect(e.cause).toBe(cause);
    expect(e.message).toMatch(/^mailbox scan: driver says no/);
  });

  it("maps mysql2's code-less pool errors", () => {
    for (const message of ["Pool is closed.", "No connections available.", "Queue limit reached."]) {
      expect(toMsgxError(new Error(message), "x").kind).toBe("DEPENDENCY_UNAVAILABLE");
    }
  });

  it("keeps every mapped error retriable, CONFIG included (an operator fix resumes work)", () => {
    for (const rule of MYSQL_ERROR_RULES) {
      const match = rule.match;
      const fields = "code" in match ? { code: match.code } : "errno" in match ? { errno: match.errno } : { sqlState: `${match.sqlStateClass}000` };
      expect(toMsgxError(driverError(fields), "x").retriable, JSON.stringify(rule)).toBe(true);
    }
  });

  it("turns an outage during COMMIT into COMMIT_UNKNOWN, and leaves other commit errors alone", () => {
    expect(toMsgxError(driverError({ code: "PROTOCOL_CONNECTION_LOST" }), "x", "commit").kind).toBe("COMMIT_UNKNOWN");
    expect(toMsgxError(driverError({ errno: 1213 }), "x", "commit").kind).toBe("CONFLICT");
  });

  it("passes a MsgxError through and wraps non-errors", () => {
    const own = new MsgxError("FENCED", "stale");
    expect(toMsgxError(own, "x")).toBe(own);
    expect(toMsgxError("boom", "x").kind).toBe("INFRA");
  });
});
