import { describeRunnerPresenceContract, describeThroughputReaderContract, gateService, type ThroughputRecordSeed } from "@msgx/core/testing";
import { sql, type Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PgFlightReader, PgRunnerPresence, PgThroughputReader } from "../src/index.js";
import { freshPgSchema, probePostgres, SharedPglite, type PgTestDb } from "./pg-harness.js";

const gate = await gateService("PostgreSQL", "adapters-pg: runner presence and throughput contracts", probePostgres);

type TestDb = Omit<PgTestDb, "leadership">;
const ts = (ms: number) => sql`to_timestamp(${ms}::bigint / 1000.0)`;

const presenceFixture = (t: TestDb) => ({
  store: new PgRunnerPresence(t.db),
  age: async (runnerId: string, ms: number) =>
    void (await sql`UPDATE runner_presence SET seen_at = seen_at - make_interval(secs => ${ms}::bigint / 1000.0) WHERE runner_id = ${runnerId}`.execute(t.db)),
  close: t.close,
});

/** Rows as the pipeline, the archive job and the relay leave them. */
async function seedThroughput(db: Kysely<any>, records: readonly ThroughputRecordSeed[], events: readonly { readonly sentAt: number | null }[]): Promise<void> {
  for (const r of records) {
    if (r.archived) {
      await sql`INSERT INTO proc_state_hst (msg_id, status, attempts, history, received_at, updated_at, archived_at)
                VALUES (${r.msgId}, ${r.status}, 1, '[]'::jsonb, ${ts(r.updatedAt - 5)}, ${ts(r.updatedAt)}, ${ts(r.updatedAt + 1)})`.execute(db);
    } else {
      await sql`INSERT INTO proc_state (msg_id, status, received_at, updated_at) VALUES (${r.msgId}, ${r.status}, ${ts(r.updatedAt - 5)}, ${ts(r.updatedAt)})`.execute(db);
    }
  }
  for (const e of events) {
    await sql`INSERT INTO msg_event (target, partition_key, event_type, state_version, source_msg_id, status, created_at, sent_at)
              VALUES ('MSG', 'k', 'UPSERT', 1, 1, ${e.sentAt === null ? "PENDING" : "SENT"}, now(), ${e.sentAt === null ? null : ts(e.sentAt)})`.execute(db);
  }
}

const throughputFixture = (t: TestDb) => ({
  reader: new PgThroughputReader(t.db),
  seed: (records: readonly ThroughputRecordSeed[], events: readonly { readonly sentAt: number | null }[]) => seedThroughput(t.db, records, events),
  close: t.close,
});

/** The plan of `statement` with sequential scans priced out: which index it can read. */
async function plan(db: Kysely<any>, statement: string): Promise<string> {
  return db.connection().execute(async (c) => {
    await sql`SET enable_seqscan = off`.execute(c);
    try {
      const { rows } = await sql.raw<{ "QUERY PLAN": string }>(`EXPLAIN ${statement}`).execute(c);
      return rows.map((r) => r["QUERY PLAN"]).join("\n");
    } finally {
      await sql`RESET enable_seqscan`.execute(c);
    }
  });
}

/** The console's reads are index ranges (0019_console, 0022_recent_flights), not scans of the tables. */
function describeIndexUse(name: string, open: () => Promise<TestDb>): void {
  describe(`console reads use their indexes: ${name}`, () => {
    let t: TestDb;
    beforeAll(async () => {
      t = await open();
    });
    afterAll(() => t.close());

    it("a flight number prefix is a range of flight_schd_flno_search_idx, read in order", async () => {
      const p = await plan(
        t.db,
        `SELECT flid FROM flight_schd f WHERE upper(f.flno) COLLATE "C" LIKE 'CA12%' AND f.flid <> 'CA12'
         ORDER BY upper(f.flno) COLLATE "C", f.sodt COLLATE "C", f.flid COLLATE "C" LIMIT 20`,
      );
      expect(p).toContain("flight_schd_flno_search_idx");
      expect(p).not.toMatch(/Sort/);
      // And the reader gives what it promises on a real flight table: nothing yet.
      expect(await new PgFlightReader(t.db).search({ text: "ca12", limit: 5 })).toEqual([]);
    });

    it("the recently changed flights are read along flight_schd_recent_idx in order: the limit ends the scan", async () => {
      const p = await plan(t.db, `SELECT flid FROM flight_schd f ORDER BY f.last_msg_id DESC, f.flid COLLATE "C" LIMIT 20`);
      expect(p).toContain("flight_schd_recent_idx");
      expect(p).not.toMatch(/Sort/);
      expect(await new PgFlightReader(t.db).recent(5)).toEqual([]);
    });

    it("the history reads the archive and the outbox by time through their indexes", async () => {
      const hst = await plan(t.db, `SELECT count(*) FROM proc_state_hst WHERE updated_at >= now() - interval '1 hour' AND updated_at < now()`);
      expect(hst).toContain("proc_state_hst_updated_idx");
      const sent = await plan(t.db, `SELECT count(*) FROM msg_event WHERE sent_at IS NOT NULL AND sent_at >= now() - interval '1 hour' AND sent_at < now()`);
      expect(sent).toContain("msg_event_sent_at_idx");
      const live = await plan(t.db, `SELECT count(*) FROM proc_state WHERE status IN ('SUCCEEDED','SKIPPED','DEAD') AND updated_at >= now() - interval '1 hour' AND updated_at < now()`);
      expect(live).toContain("proc_state_terminal_age_idx");
    });
  });
}

describe.skipIf(!gate.available)("on PostgreSQL", () => {
  describeRunnerPresenceContract("PgRunnerPresence (PostgreSQL)", async () => presenceFixture(await freshPgSchema()));
  describeThroughputReaderContract("PgThroughputReader (PostgreSQL)", async () => throughputFixture(await freshPgSchema()));
  describeIndexUse("PostgreSQL", () => freshPgSchema());
});

describe("on PGlite", () => {
  const pglite = new SharedPglite();
  beforeAll(() => pglite.open());
  afterAll(() => pglite.close());
  describeRunnerPresenceContract("PgRunnerPresence (PGlite)", async () => presenceFixture(await pglite.freshSchema()));
  describeThroughputReaderContract("PgThroughputReader (PGlite)", async () => throughputFixture(await pglite.freshSchema()));
  describeIndexUse("PGlite", () => pglite.freshSchema());
});
