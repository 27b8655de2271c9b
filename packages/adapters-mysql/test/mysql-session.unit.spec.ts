import { describe, expect, it } from "vitest";
import { MysqlMailbox, type MysqlConnectionLike, type MysqlPoolLike, type MysqlQueryOptions } from "@msgx/adapters-mysql";

/** A scripted pool: one physical connection; `answer` decides each statement's result. */
function fakePool(answer: (sql: string) => unknown) {
  const physical = {};
  const log: string[] = [];
  const events: string[] = [];
  const pool: MysqlPoolLike = {
    async getConnection(): Promise<MysqlConnectionLike> {
      events.push("acquire");
      return {
        connection: physical,
        async query(o: MysqlQueryOptions) {
          log.push(o.sql);
          const result = answer(o.sql);
          if (result instanceof Error) throw result;
          return [result, undefined] as const;
        },
        release: () => events.push("release"),
        destroy: () => events.push("destroy"),
      };
    },
  };
  return { pool, log, events };
}

const lost = () => Object.assign(new Error("Connection lost"), { code: "PROTOCOL_CONNECTION_LOST", fatal: true });

describe("connection handling (scripted pool)", () => {
  it("sets the session up once per physical connection: UTC, strict, READ COMMITTED", async () => {
    const { pool, log, events } = fakePool((sql) => (sql.startsWith("SELECT") ? [] : { affectedRows: 0, insertId: 0 }));
    const m = new MysqlMailbox(pool);
    await m.scan(0, 10);
    await m.scan(0, 10);
    const sets = log.filter((s) => s.startsWith("SET"));
    expect(sets).toHaveLength(2);
    expect(sets[0]).toContain("time_zone = '+00:00'");
    expect(sets[0]).toContain("STRICT_ALL_TABLES");
    expect(sets[1]).toContain("READ COMMITTED");
    expect(events).toEqual(["acquire", "release", "acquire", "release"]);
  });

  it("destroys the connection after an error and maps it", async () => {
    const { pool, events } = fakePool((sql) => (sql.startsWith("SELECT") ? lost() : {}));
    await expect(new MysqlMailbox(pool).readRaw([1])).rejects.toMatchObject({ kind: "DEPENDENCY_UNAVAILABLE" });
    expect(events).toEqual(["acquire", "destroy"]);
  });

  it("backfills in one autocommit statement: lost while it ran is COMMIT_UNKNOWN, lost before it is not", async () => {
    const entry = { msgId: 1, processedAt: 0, meta: null };
    const duringUpdate = fakePool((sql) => (sql.startsWith("UPDATE") ? lost() : {}));
    await expect(new MysqlMailbox(duringUpdate.pool).backfill([entry])).rejects.toMatchObject({ kind: "COMMIT_UNKNOWN", retriable: true });
    expect(duringUpdate.log.filter((s) => !s.startsWith("SET"))).toEqual([expect.stringMatching(/^UPDATE/)]);
    expect(duringUpdate.events).toEqual(["acquire", "destroy"]);

    const beforeUpdate = fakePool((sql) => (sql.startsWith("SET") ? lost() : { affectedRows: 1 }));
    await expect(new MysqlMailbox(beforeUpdate.pool).backfill([entry])).rejects.toMatchObject({ kind: "DEPENDENCY_UNAVAILABLE" });
    expect(beforeUpdate.log.some((s) => s.startsWith("UPDATE"))).toBe(false);
  });

  it("appends in one autocommit statement: lost while it ran is COMMIT_UNKNOWN, lost before it is not", async () => {
    // One append at a time, without grouping (grouped appends: mysql-mailbox-appends.unit.spec.ts).
    const single = { appendGrouping: null };
    const { pool, log } = fakePool((sql) => (sql.startsWith("INSERT") ? { affectedRows: 1, insertId: 7 } : {}));
    expect(await new MysqlMailbox(pool, single).append("<MSG/>")).toBe(7);
    expect(log.filter((s) => !s.startsWith("SET"))).toEqual([expect.stringMatching(/^INSERT/)]);

    const duringInsert = fakePool((sql) => (sql.startsWith("INSERT") ? lost() : {}));
    await expect(new MysqlMailbox(duringInsert.pool, single).append("<MSG/>")).rejects.toMatchObject({ kind: "COMMIT_UNKNOWN", retriable: true });
    expect(duringInsert.events).toEqual(["acquire", "destroy"]);

    const beforeInsert = fakePool((sql) => (sql.startsWith("SET") ? lost() : { affectedRows: 1, insertId: 7 }));
    await expect(new MysqlMailbox(beforeInsert.pool, single).append("<MSG/>")).rejects.toMatchObject({ kind: "DEPENDENCY_UNAVAILABLE" });
    expect(beforeInsert.log.some((s) => s.startsWith("INSERT"))).toBe(false);

    const refused = fakePool((sql) => (sql.startsWith("INSERT") ? Object.assign(new Error("Data too long"), { errno: 1406, sqlState: "22001", code: "ER_DATA_TOO_LONG" }) : {}));
    await expect(new MysqlMailbox(refused.pool, single).append("<MSG/>")).rejects.not.toMatchObject({ kind: "COMMIT_UNKNOWN" });
  });

  it("appends the raw text through the binary protocol when the pool has it, and through query when not", async () => {
    const { pool, log } = fakePool((sql) => (sql.startsWith("INSERT") ? { affectedRows: 1, insertId: 9 } : {}));
    const executed: MysqlQueryOptions[] = [];
    const withExecute: MysqlPoolLike = {
      async getConnection() {
        const conn = await pool.getConnection();
        return Object.assign(conn, {
          async execute(o: MysqlQueryOptions) {
            executed.push(o);
            return [{ affectedRows: 1, insertId: 9 }, undefined] as const;
          },
        });
      },
    };
    const raw = `<MSG>${"'\"".repeat(1000)}`;
    expect(await new MysqlMailbox(withExecute, { appendGrouping: null }).append(raw)).toBe(9);
    expect(executed.map((o) => [o.sql.slice(0, 6), o.values?.[0]])).toEqual([["INSERT", raw]]);
    expect(log.some((s) => s.startsWith("INSERT"))).toBe(false);
    // A pool without execute still works, through query.
    expect(await new MysqlMailbox(pool, { appendGrouping: null }).append(raw)).toBe(9);
    expect(log.filter((s) => s.startsWith("INSERT"))).toHaveLength(1);
  });

  it("backfills in one statement whatever the batch size when every row was open, and reads once when some were not", async () => {
    const ids = Array.from({ length: 300 }, (_, i) => i + 1);
    const entries = ids.map((msgId) => ({ msgId, processedAt: 0, meta: null }));
    const allOpen = fakePool((sql) => (sql.startsWith("UPDATE") ? { affectedRows: ids.length } : {}));
    const result = await new MysqlMailbox(allOpen.pool).backfill(entries);
    expect(result.written).toHaveLength(300);
    expect(allOpen.log.filter((s) => !s.startsWith("SET"))).toHaveLength(1);

    const noneOpen = fakePool((sql) => (sql.startsWith("UPDATE") ? { affectedRows: 0 } : {}));
    expect(await new MysqlMailbox(noneOpen.pool).backfill(entries)).toEqual({ written: [], alreadyDone: ids, defects: [] });
    expect(noneOpen.log.filter((s) => !s.startsWith("SET"))).toHaveLength(1);

    // The read returns the rows holding this call's value (1 and 2); the others were done before or are gone.
    const mixed = fakePool((sql) => (sql.startsWith("UPDATE") ? { affectedRows: 2 } : [{ id: 1 }, { id: "2" }]));
    const split = await new MysqlMailbox(mixed.pool).backfill(entries);
    expect(split.written).toEqual([1, 2]);
    expect(split.alreadyDone).toEqual(ids.slice(2));
    expect(mixed.log.filter((s) => !s.startsWith("SET")).map((s) => s.split(" ")[0])).toEqual(["UPDATE", "SELECT"]);

    // One row changed, two hold this call's value: a concurrent call of the same entry wrote the
    // other, and the read cannot tell which: both count as written (a defect logged twice, never lost).
    const ambiguous = fakePool((sql) => (sql.startsWith("UPDATE") ? { affectedRows: 1 } : [{ id: 1 }, { id: 2 }]));
    const both = await new MysqlMailbox(ambiguous.pool).backfill(entries.slice(0, 3));
    expect([both.written, both.alreadyDone]).toEqual([[1, 2], [3]]);
  });

  it("gives up on a pool that hands out no connection within acquireTimeoutMs", async () => {
    const stuck: MysqlPoolLike = { getConnection: () => new Promise(() => undefined) };
    const m = new MysqlMailbox(stuck, { timeouts: { acquireTimeoutMs: 50 } });
    await expect(m.scan(0, 1)).rejects.toMatchObject({ kind: "DEPENDENCY_UNAVAILABLE", message: expect.stringContaining("MSGX_ACQUIRE_TIMEOUT") });
  });

  it("does not start work for an aborted signal", async () => {
    const { pool, events } = fakePool(() => []);
    const signal = AbortSignal.abort();
    await expect(new MysqlMailbox(pool).scan(0, 1, signal)).rejects.toMatchObject({ name: "AbortError" });
    expect(events).toEqual([]);
  });
});
