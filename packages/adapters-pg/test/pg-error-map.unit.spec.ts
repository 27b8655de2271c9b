import { MsgxError } from "@msgx/core";
import { describe, expect, it } from "vitest";
import { classifyPgError, mapPgError } from "../src/pg-error-map.js";

const pgError = (code: string, message = "x") => Object.assign(new Error(message), { code, severity: "ERROR" });

describe("pg error map", () => {
  it.each([
    ["57P01", "DEPENDENCY_UNAVAILABLE"],
    ["57P02", "DEPENDENCY_UNAVAILABLE"],
    ["57P03", "DEPENDENCY_UNAVAILABLE"],
    ["08006", "DEPENDENCY_UNAVAILABLE"],
    ["08001", "DEPENDENCY_UNAVAILABLE"],
    ["53300", "DEPENDENCY_UNAVAILABLE"],
    ["57014", "DEPENDENCY_UNAVAILABLE"],
    ["57P05", "DEPENDENCY_UNAVAILABLE"],
    ["57000", "DEPENDENCY_UNAVAILABLE"],
    ["25006", "DEPENDENCY_UNAVAILABLE"],
    ["25001", "INFRA"],
    ["55P03", "DEPENDENCY_UNAVAILABLE"],
    ["40001", "CONFLICT"],
    ["40P01", "CONFLICT"],
    ["23505", "INFRA"],
    ["23514", "INFRA"],
    ["22P02", "INFRA"],
    ["P0001", "INFRA"],
    ["42P01", "CONFIG"],
    ["26000", "CONFIG"],
    ["XX000", "INFRA"],
  ])("SQLSTATE %s is %s", (code, kind) => {
    expect(classifyPgError(pgError(code)).kind).toBe(kind);
    expect(mapPgError(pgError(code), "op")).toMatchObject({ kind });
  });

  it.each(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND"])("socket %s is an outage", (code) => {
    expect(mapPgError(pgError(code), "op").kind).toBe("DEPENDENCY_UNAVAILABLE");
  });

  it.each([
    "Connection terminated unexpectedly",
    "Connection terminated due to connection timeout",
    "timeout exceeded when trying to connect",
    "Query read timeout",
    "Client has encountered a connection error and is not queryable",
    "Cannot use a pool after calling end on the pool",
    "PGlite is closed",
    "the database system is shutting down",
    "the database system is in recovery mode",
    "the database system is starting up",
    "the database system is not yet accepting connections",
  ])("code-less %j is an outage", (message) => {
    expect(mapPgError(new Error(message), "op").kind).toBe("DEPENDENCY_UNAVAILABLE");
  });

  it("a write refused by a standby during failover is an outage, not a fault of the message (and no attempt is spent)", () => {
    const refused = pgError("25006", "cannot execute INSERT in a read-only transaction");
    const mapped = mapPgError(refused, "applyRun");
    expect(mapped).toMatchObject({ kind: "DEPENDENCY_UNAVAILABLE", retriable: true });
    expect(mapped.message).toMatch(/read_only_sql_transaction.*\[25006\]$/);
  });

  it("finds a socket code on the cause (AggregateError from a refused dual-stack connect)", () => {
    const e = new Error("connect failed", { cause: pgError("ECONNREFUSED") });
    expect(mapPgError(e, "op").kind).toBe("DEPENDENCY_UNAVAILABLE");
  });

  it("an outage during COMMIT leaves the outcome unknown; a definite refusal does not", () => {
    expect(mapPgError(new Error("Connection terminated unexpectedly"), "commit", "commit").kind).toBe("COMMIT_UNKNOWN");
    expect(mapPgError(pgError("57P01"), "commit", "commit").kind).toBe("COMMIT_UNKNOWN");
    expect(mapPgError(pgError("40001"), "commit", "commit").kind).toBe("CONFLICT");
    expect(mapPgError(pgError("23505"), "commit", "commit").kind).toBe("INFRA");
  });

  it("keeps the driver error as cause, names the operation and SQLSTATE, passes MsgxError through", () => {
    const cause = pgError("23505", "duplicate key value violates unique constraint");
    const mapped = mapPgError(cause, "applyRun");
    expect(mapped.cause).toBe(cause);
    expect(mapped.message).toMatch(/^applyRun: unique_violation.*duplicate key.*\[23505\]$/);
    expect(mapped.retriable).toBe(true);
    expect(mapPgError(pgError("42P01"), "head").retriable).toBe(false);
    const own = new MsgxError("FENCED", "stale");
    expect(mapPgError(own, "x")).toBe(own);
    expect(mapPgError("weird", "x").kind).toBe("INFRA");
  });
});
