/**
 * The runner's maintenance loops over the embedded state (PGlite, as `msgx run` uses it without
 * `pg.url`): the default store wiring, lock keys and migrations are the real ones.
 */
import { createPgliteStores, PgMailbox, type PgStores } from "@msgx/adapters-pg";
import { emptyRunDecision, silentLogger } from "@msgx/core";
import { ManualClock, sampleFlight } from "@msgx/core/testing";
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AppParts } from "../src/app/app-parts.js";
import { createMaintenanceJobs } from "../src/jobs/maintenance-schedule.js";
import { loadConfig } from "../src/config/load-config.js";
import { MAINTENANCE_SCHEDULE } from "../src/jobs/maintenance-schedule.js";

/** 03:30 airport time on 10 March 2026. */
const SWEEP = Date.UTC(2026, 2, 9, 19, 30);

describe("maintenance loops on the embedded state (PGlite)", () => {
  let pg: PgStores;
  let clock: ManualClock;
  let fence: number;
  beforeEach(async () => {
    clock = new ManualClock(SWEEP - 60_000);
    pg = await createPgliteStores(undefined, { clock });
    fence = await pg.bumpEpoch();
  });
  afterEach(() => pg.close());

  const loops = (env: Record<string, string> = {}) => {
    const parts = { kind: "embedded", store: pg.store, maintenance: pg.maintenance, mailbox: new PgMailbox(pg.db), fence } as unknown as AppParts;
    const steps = createMaintenanceJobs({ parts, config: loadConfig({ env }), logger: silentLogger, clock }).steps;
    return (name: string) => {
      const step = steps.find((s) => s.name === name)!;
      return async () => (await step.run(new AbortController().signal)).after;
    };
  };

  it("the history sweep and the archive run on schedule under the runner's fence", async () => {
    await pg.store.transaction((tx) =>
      tx.applyRun({ ...emptyRunDecision, flights: [{ ...sampleFlight("7", 2), operationDay: "20260301" }, { ...sampleFlight("9", 1), operationDay: "20260309" }] }),
    );
    const loop = loops();
    const sweep = loop("history-sweep");
    expect(await sweep()).toBe(60_000);
    clock.set(SWEEP);
    expect(await sweep()).toBe(86_400_000);
    const { rows } = await sql<{ flid: string; tombstone_version: unknown }>`SELECT flid, tombstone_version FROM flight_schd_hst`.execute(pg.db);
    expect(rows.map((r) => [r.flid, Number(r.tombstone_version)])).toEqual([["7", 3]]);
    const { rows: live } = await sql<{ flid: string }>`SELECT flid FROM flight_schd`.execute(pg.db);
    expect(live.map((r) => r.flid)).toEqual(["9"]);

    const archive = loop("proc-state-archive");
    expect(await archive()).toBe(MAINTENANCE_SCHEDULE.archiveFirstAfterMs);
    clock.advance(MAINTENANCE_SCHEDULE.archiveFirstAfterMs);
    expect(await archive()).toBe(MAINTENANCE_SCHEDULE.archiveEveryMs);
  });

  it("a deposed leader's sweep is refused and writes nothing", async () => {
    await pg.store.transaction((tx) => tx.applyRun({ ...emptyRunDecision, flights: [{ ...sampleFlight("7", 2), operationDay: "20260301" }] }));
    const sweep = loops()("history-sweep");
    await sweep();
    await pg.bumpEpoch();
    clock.set(SWEEP);
    await expect(sweep()).rejects.toThrow(/fence/);
    const { rows } = await sql<{ n: unknown }>`SELECT count(*) AS n FROM flight_schd`.execute(pg.db);
    expect(Number(rows[0]?.n)).toBe(1);
  });
});
