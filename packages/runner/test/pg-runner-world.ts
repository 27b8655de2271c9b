import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll } from "vitest";
import { gateService, type ServiceGate } from "@msgx/core/testing";

/** What an e2e file that spawns runners on PostgreSQL shares: see {@link pgRunnerWorld}. */
export interface PgRunnerWorld {
  readonly url: string;
  /** A schema name of the file's own (`MSGX_PG_SCHEMA`); the file creates it, the world drops it. */
  readonly run: string;
  /** A connected client when the gate is open. */
  readonly client: pg.Client;
  readonly gate: ServiceGate;
  /** A new scratch data directory for one runner. */
  readonly dataDir: () => string;
}

/**
 * Gates `suite` on PostgreSQL (NOT RUN without it, a failure under MSGX_REQUIRE_SERVICES=1) and,
 * after the file, drops its schema and removes every data directory it handed out. Call it at the
 * top level of the spec file.
 */
export async function pgRunnerWorld(prefix: string, suite: string): Promise<PgRunnerWorld> {
  const url = process.env["MSGX_TEST_PG_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";
  const run = `${prefix}_${process.pid}_${Date.now() % 100_000}`;
  const dirs: string[] = [];
  const dataDir = (): string => {
    const dir = mkdtempSync(join(tmpdir(), `msgx-${prefix}-`));
    dirs.push(dir);
    return dir;
  };
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  const gate = await gateService("PostgreSQL", suite, async () => void (await client.connect()));
  afterAll(async () => {
    if (gate.available) await client.query(`DROP SCHEMA IF EXISTS ${run} CASCADE`).catch(() => undefined);
    await client.end().catch(() => undefined);
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  return { url, run, client, gate, dataDir };
}
