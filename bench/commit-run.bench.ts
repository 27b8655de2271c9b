/**
 * Issue 32 item 2: the cost of committing one run decided from memory, by each way of writing it
 * (docs/benchmarks.md, "Issue 32 item 2"). Runs of `--runs` sizes (default 1 and 200 messages),
 * each message succeeding, binding its identity, changing one flight (a scalar; the collections
 * as stored) and emitting two events, committed by:
 *   transaction  today's path: BEGIN + lock with the enter call, owners + flights (one statement,
 *                locked), applyRun (two statements, unchanged collections skipped), COMMIT
 *   multi        one multi-statement simple-protocol message of applyRun's parts (bench/commit)
 *   function     `PgPipelineStore.commitRun`: `msgx_commit_run(…, run jsonb)`, one call, the run as JSON (kept),
 *                given the flights as stored (`stored`, as the pump gives its memory): unchanged collections skipped
 *   function-whole  the same call without `stored`: every collection of a changed flight rewritten
 * Each mode gets a fresh schema with the same seeded flights; the modes take turns run by run. The
 * decisions are made before the timer, which covers the commits only (building the SQL text or
 * the JSON included).
 *
 *   node bench/run.mjs commit-run [--commit transaction,multi,function] [--runs 1,200] [--messages 4000]
 *                                 [--flights 500] [--pglite]
 */
import { DEFAULT_RETRY_POLICY, emptyRunDecision, type FlightState, type PipelineStore, type RunDecision } from "@msgx/core";
import { evolveProc } from "@msgx/core/testing";
import { createPgStores, migrateToLatest, PG_BACKFILL_FIRST_DELAY_MS, PGliteDialect, PgPipelineStore } from "@msgx/adapters-pg";
import { Kysely } from "kysely";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { commitRunByMultiStatement } from "./commit/commit-run-multi.js";
import { flidOf, seedFlight as plainSeed } from "./seed-flight.js";

const arg = (name: string, fallback: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
};
const MODES = arg("commit", "transaction,multi,function").split(",") as Mode[];
const RUNS = arg("runs", "1,200").split(",").map(Number);
const MESSAGES = Number(arg("messages", "4000"));
const FLIGHTS = Number(arg("flights", "500"));
const PGLITE = process.argv.includes("--pglite");
const PG_URL = process.env["MSGX_PG_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";
const T0 = Date.UTC(2026, 2, 5, 2, 0, 0);

type Mode = "transaction" | "multi" | "function" | "function-whole";

const row = (key: string, values: Record<string, string | null>) => ({ key, values });

/** A seeded flight with three collections of a few rows. */
const seedFlight = (i: number): FlightState => ({
  ...plainSeed(i),
  collections: {
    ROUT: [row("1", { APCD: "CAN", ROUT: "1" }), row("2", { APCD: "PEK", ROUT: "2" })],
    GTDT: [row("1", { GATE: "A22", PGOT: "2026-03-05T07:10", GOTM: null })],
    DELY: [row("81", { "@CODE": "81", "@DURA": "00:25", "#text": "ATC flow" })],
  },
});

const meta = (seqn: number) => ({ sndr: "AODB", seqn, dttm: "20260305020000", type: "FLOP", styp: "ESTT" });

/** A run and its flights as stored before it (what the leader's memory holds). */
interface Run {
  readonly decision: RunDecision;
  readonly stored: ReadonlyMap<string, FlightState>;
}

/** The runs every mode commits, made in memory as the leader would (each flight's next version). */
function decisions(size: number, records: Map<number, Parameters<typeof evolveProc>[0]>): Run[] {
  const flights = new Map(Array.from({ length: FLIGHTS }, (_, i) => [flidOf(i), seedFlight(i)] as const));
  const runs: Run[] = [];
  for (let first = 1; first <= MESSAGES; first += size) {
    const ids = Array.from({ length: Math.min(size, MESSAGES - first + 1) }, (_, k) => first + k);
    const changed = new Map<string, FlightState>();
    const stored = new Map<string, FlightState>();
    for (const id of ids) {
      const flid = flidOf(id % FLIGHTS);
      const before = changed.get(flid) ?? flights.get(flid)!;
      if (!stored.has(flid)) stored.set(flid, before);
      const next = { ...before, stateVersion: before.stateVersion + 1, lastMsgId: id, scalars: { ...before.scalars, EOBT: `2026-03-05T08:${String(id % 60).padStart(2, "0")}` } };
      changed.set(flid, next);
      flights.set(flid, next);
    }
    const decision: RunDecision = {
      ...emptyRunDecision,
      records: ids.map((id) => evolveProc(records.get(id)!, { type: "succeeded" }, { now: T0, identityKey: `AODB|FLOP|ESTT|${id}`, meta: meta(id) }, DEFAULT_RETRY_POLICY)),
      bindings: ids.map((msgId) => ({ identityKey: `AODB|FLOP|ESTT|${msgId}`, msgId, contentHash: `h${msgId}` })),
      flights: [...changed.values()],
      events: ids.flatMap((id) =>
        ["KAFKA:msg", "KAFKA:schd"].map((target) => ({ target, partitionKey: flidOf(id % FLIGHTS), eventType: "UPSERT" as const, stateVersion: id, payload: { flid: flidOf(id % FLIGHTS), id }, sourceMsgId: id })),
      ),
      backfill: ids.map((msgId) => ({ msgId, processedAt: T0, meta: meta(msgId) })),
    };
    runs.push({ decision, stored });
  }
  return runs;
}

async function commit(mode: Mode, store: PgPipelineStore, db: Kysely<any>, { decision: d, stored }: Run, generation: number): Promise<void> {
  if (mode === "transaction") {
    await store.transaction(async (tx) => {
      await Promise.all([tx.identityOwners(d.bindings.map((b) => b.identityKey)), tx.loadFlights(d.flights.map((f) => f.flid))]);
      await tx.applyRun(d);
    });
  } else if (mode === "multi") {
    await commitRunByMultiStatement(db, store.lockKeys, d, { generation }, Date.now(), PG_BACKFILL_FIRST_DELAY_MS);
  } else if (mode === "function") {
    await store.commitRun(d, { generation, stored });
  } else {
    await store.commitRun(d, { generation });
  }
}

interface Target {
  readonly mode: Mode;
  readonly store: PgPipelineStore;
  readonly db: Kysely<any>;
  readonly generation: number;
  readonly close: () => Promise<void>;
  elapsedMs: number;
}

/** A PGlite in memory, migrated: the runner's own `@electric-sql/pglite` (the bench package does not depend on it). */
async function pgliteStore(): Promise<{ store: PgPipelineStore; db: Kysely<any>; close: () => Promise<void> }> {
  const entry = createRequire(join(process.cwd(), "packages/runner/package.json")).resolve("@electric-sql/pglite");
  const { PGlite } = (await import(pathToFileURL(entry).href)) as { PGlite: { create(): Promise<unknown> } };
  const db = new Kysely<any>({ dialect: new PGliteDialect({ pglite: (await PGlite.create()) as never }) });
  await migrateToLatest(db);
  return { store: new PgPipelineStore(db), db, close: () => db.destroy() };
}

/** A fresh schema (or PGlite instance) for `mode`, seeded and enqueued, not timed. */
async function open(mode: Mode, size: number): Promise<Target & { records: Map<number, Parameters<typeof evolveProc>[0]> }> {
  const schema = `msgx_commit_${mode.replace("-", "_")}_${size}_${process.pid}`;
  const handle = PGLITE ? await pgliteStore() : await createPgStores({ connectionString: PG_URL, schema, max: 2 });
  const { store, db } = handle as { store: PgPipelineStore; db: Kysely<any> };
  await store.transaction((tx) => tx.applyRun({ ...emptyRunDecision, flights: Array.from({ length: FLIGHTS }, (_, i) => seedFlight(i)) }));
  for (let i = 1; i <= MESSAGES; i += 5_000) {
    const ids = Array.from({ length: Math.min(5_000, MESSAGES - i + 1) }, (_, k) => i + k);
    await (store as PipelineStore).enqueue(ids.map((msgId) => ({ msgId, receivedAt: T0 })), { horizon: ids.at(-1)! });
  }
  const records = new Map((await store.list({})).map((r) => [r.msgId, r]));
  const { generation } = await store.loadRunState([], []);
  const close = async () => {
    if (!PGLITE) await db.schema.dropSchema(schema).ifExists().cascade().execute().catch(() => undefined);
    await handle.close();
  };
  return { mode, store, db, generation, close, elapsedMs: 0, records };
}

/**
 * Every mode commits the same runs, interleaved (run i in each mode before run i + 1), so a
 * neighbour's load on the machine falls on all modes alike. Returns ms per run by mode.
 */
async function measure(size: number): Promise<Map<Mode, number>> {
  const targets = [];
  for (const mode of MODES) targets.push(await open(mode, size));
  try {
    const runs = decisions(size, targets[0]!.records);
    for (const d of runs) {
      for (const t of targets) {
        const started = process.hrtime.bigint();
        await commit(t.mode, t.store, t.db, d, t.generation);
        t.elapsedMs += Number(process.hrtime.bigint() - started) / 1e6;
      }
    }
    for (const t of targets) {
      const done = (await t.store.list({ statuses: ["SUCCEEDED"] })).length;
      if (done !== MESSAGES) throw new Error(`${t.mode}: ${done} of ${MESSAGES} messages committed`);
    }
    return new Map(targets.map((t) => [t.mode, t.elapsedMs / runs.length]));
  } finally {
    for (const t of targets) await t.close();
  }
}

async function main(): Promise<void> {
  console.log(`commit-run: ${MESSAGES} messages over ${FLIGHTS} flights, on ${PGLITE ? "PGlite (in memory)" : "PostgreSQL"}, modes interleaved`);
  for (const size of RUNS) {
    for (const [mode, perRun] of await measure(size)) {
      console.log(`  run of ${String(size).padStart(3)}  ${mode.padEnd(11)} ${perRun.toFixed(3)} ms per run, ${(perRun / size).toFixed(4)} ms per message`);
    }
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
