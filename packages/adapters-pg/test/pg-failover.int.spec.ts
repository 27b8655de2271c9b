import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { guardPool, mapPgError, pgPoolConfig, prepareHotStatements } from "../src/index.js";
import { gatePgHa, haCommand, HA_PORTS } from "./pg-ha.js";

const SUITE = "adapters-pg: a multi-host pool through a PostgreSQL failover";
const ha = await gatePgHa(SUITE);
if (ha.available) console.info(`[msgx] ${SUITE}: scripts/pg-ha start took ${(ha.startMs / 1000).toFixed(1)} s (initdb, base backup, standby in sync)`);

afterAll(async () => {
  if (ha.available) await haCommand("reset");
});

type Queryable = { query(text: string): Promise<{ rows: Record<string, unknown>[] }> };
const serverPort = async (c: Queryable): Promise<number> => Number((await c.query("SELECT inet_server_port() AS port")).rows[0]!["port"]);
const failure = (p: Promise<unknown>): Promise<unknown> => p.then(
  () => {
    throw new Error("expected a failure");
  },
  (e: unknown) => e,
);

describe.skipIf(!ha.available)("a multi-host URL with target_session_attrs=read-write through kill-primary and promote", () => {
  it("writes on the primary; a standby refuses writes as an outage; after the kill every write is an outage; after the promotion the next connection writes on the new primary with the committed rows", async () => {
    const url = await haCommand("url");
    expect(url).toBe(`postgres://postgres@127.0.0.1:${HA_PORTS.a},127.0.0.1:${HA_PORTS.b}/test?target_session_attrs=read-write`);
    const config = pgPoolConfig({ connectionString: url, max: 2, connectTimeoutMs: 3_000 }, pg);
    const pool = prepareHotStatements(guardPool(new pg.Pool(config)));
    try {
      const first = await pool.connect();
      expect(await serverPort(first)).toBe(HA_PORTS.a);
      await first.query("CREATE TABLE failover_t (n int PRIMARY KEY)");
      await first.query("INSERT INTO failover_t VALUES (1)");

      // The standby is reachable but read-only: a write there is the failover's outage, not a fault of the message.
      const standby = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${HA_PORTS.b}/test` });
      await standby.connect();
      const refused = await failure(standby.query("INSERT INTO failover_t VALUES (100)"));
      expect(refused).toMatchObject({ code: "25006" });
      expect(mapPgError(refused, "insert").kind).toBe("DEPENDENCY_UNAVAILABLE");
      await standby.end();

      await haCommand("kill-primary");
      const lost = await failure(first.query("INSERT INTO failover_t VALUES (2)"));
      expect(mapPgError(lost, "insert").kind).toBe("DEPENDENCY_UNAVAILABLE");
      first.release(lost as Error);

      // No host gives a read-write session: the old primary refuses, the standby is read-only.
      const none = await failure(pool.connect());
      expect(mapPgError(none, "connect").kind).toBe("DEPENDENCY_UNAVAILABLE");
      expect((none as Error).message).toMatch(new RegExp(`127\\.0\\.0\\.1:${HA_PORTS.a}: .*ECONNREFUSED`));
      expect((none as Error).message).toMatch(new RegExp(`127\\.0\\.0\\.1:${HA_PORTS.b} is read-only`));

      const promoteStarted = performance.now();
      await haCommand("promote");
      const promoteMs = performance.now() - promoteStarted;
      const next = await pool.connect();
      expect(await serverPort(next)).toBe(HA_PORTS.b);
      // Committed (and acknowledged) before the kill, so on the synchronous standby: nothing lost.
      expect((await next.query("SELECT n FROM failover_t WHERE n = 1")).rows).toEqual([{ n: 1 }]);
      await next.query("INSERT INTO failover_t VALUES (3)");
      next.release();
      console.info(`[msgx] ${SUITE}: scripts/pg-ha promote took ${(promoteMs / 1000).toFixed(1)} s; the pool's next connection wrote on the new primary`);

      // A lone client (not a pool's) built from the same config finds the new primary too.
      const Client = config["Client"] as typeof pg.Client;
      const lone = new Client(config);
      await lone.connect();
      expect(await serverPort(lone)).toBe(HA_PORTS.b);
      await lone.end();

      // The old primary is fenced: never started again, its slot re-cloned as a standby by `start`.
      expect(await haCommand("status")).toMatch(/node a 127\.0\.0\.1:5433 absent\nnode a\.fenced/);
      await haCommand("start");
      expect(await haCommand("status")).toMatch(/node a 127\.0\.0\.1:5433 standby \(sync\)\n(.*\n)?node b 127\.0\.0\.1:5434 primary/);

      // A fresh pool tries the hosts in order: 5433 is now a standby, so it lands on 5434.
      const fresh = guardPool(new pg.Pool(pgPoolConfig({ connectionString: url, max: 1 }, pg)));
      try {
        expect(await serverPort(fresh)).toBe(HA_PORTS.b);
        expect((await fresh.query("SELECT array_agg(n ORDER BY n) AS ns FROM failover_t WHERE n IN (1, 3)")).rows).toEqual([{ ns: [1, 3] }]);
      } finally {
        await fresh.end();
      }
    } finally {
      await pool.end();
    }
  });
});
