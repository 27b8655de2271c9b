/**
 * HTTP ingress: `POST /cminmsgs/send` on the built `msgx run` binary (real PostgreSQL, MariaDB and
 * Kafka; the pipeline processes what arrives, as in production) at fixed offered rates from an
 * open-loop generator in this process: accepted requests/s and latency (p50/p99 from the instant
 * each request was due, so a server that falls behind is charged for it). One fresh runner,
 * schema, mailbox and topics per rate; a DNLD of `--flights` flights goes first, then FLOP updates.
 * Every accepted message is checked to have been processed before the next rate.
 *
 *   node bench/run.mjs ingress [--rates 250,500,1000] [--seconds 15] [--flights 500] [--max-in-flight 256]
 */
import { createPgStores } from "@msgx/adapters-pg";
import { fmt, listArg, machineInfo, mysqlPool, numArg, printTable, runTag, URLS, writeReport } from "./fault/infra.js";
import { openLoop, type LoadResult } from "./fault/load.js";
import { createMailbox, dropRun, realRun, spawnRealRunner, stopRunner, waitQuiet } from "./fault/runner.js";
import { dnldThenFlops } from "./fault/stream.js";

const RATES = listArg("rates", "250,500,1000");
const SECONDS = numArg("seconds", 15);
const FLIGHTS = numArg("flights", 500);
const MAX_IN_FLIGHT = numArg("max-in-flight", 256);

type Row = Omit<LoadResult, "ids"> & { readonly processed: Record<string, number>; readonly skippedReasons: readonly string[] };

async function atRate(rate: number): Promise<Row> {
  const run = realRun(runTag(`ingress_${rate}`));
  const pool = mysqlPool(1);
  await createMailbox(pool, run);
  const count = Math.round(rate * SECONDS);
  const stream = dnldThenFlops({ flights: FLIGHTS, messages: count + 1, seed: rate });
  const runner = await spawnRealRunner(run);
  try {
    const dnld = await fetch(new URL("/cminmsgs/send", runner.url), { method: "POST", headers: { "content-type": "application/xml" }, body: stream[0]! });
    if (!dnld.ok) throw new Error(`DNLD refused: ${dnld.status}`);
    await waitQuiet(runner.url, 1, 60_000);
    const { ids: _ids, ...load } = await openLoop({ url: runner.url, bodies: stream.slice(1), rate, maxInFlight: MAX_IN_FLIGHT });
    const status = await waitQuiet(runner.url, load.ok + 1, 300_000);
    await stopRunner(runner);
    // Concurrent POSTs commit in any order, so an update can reach the mailbox behind a newer one
    // for the same flight: it is then SKIPPED as stale (by its source time), as designed.
    const pg = await createPgStores({ connectionString: URLS.pg, schema: run.schema, migrate: false, max: 1 });
    const skipped = (await pg.db.selectFrom("proc_state").select(["reason"]).where("status", "=", "SKIPPED").execute().finally(() => pg.close())).map((r) => String(r.reason));
    return { ...load, processed: Object.fromEntries(Object.entries(status.byStatus).filter(([, n]) => n > 0)), skippedReasons: skipped };
  } finally {
    await stopRunner(runner);
    const pg = await createPgStores({ connectionString: URLS.pg, migrate: false, max: 1 });
    await pg.db.schema.dropSchema(run.schema).ifExists().cascade().execute().catch(() => undefined);
    await pg.close();
    await dropRun(run, pool);
    await pool.end();
  }
}

async function main(): Promise<void> {
  const machine = machineInfo();
  console.log(`ingress: POST /cminmsgs/send on the msgx binary (real PostgreSQL, MariaDB, Kafka); offered ${RATES.join(", ")} req/s for ${SECONDS} s each`);
  console.log(`  machine: ${machine.nproc} CPUs, ${machine.memoryGiB} GiB, load ${machine.loadAverage1m}; PostgreSQL ${machine.postgres}, MariaDB ${machine.mariadb}, ${machine.kafka}`);
  const rows: Row[] = [];
  for (const rate of RATES) {
    const r = await atRate(rate);
    rows.push(r);
    console.log(`  offered ${rate}/s: accepted ${fmt(r.achievedPerSecond)}/s, p50 ${r.latencyMs.p50.toFixed(1)} ms, p99 ${r.latencyMs.p99.toFixed(1)} ms (${r.ok} ok, ${r.refused} refused, ${r.failed} failed; processed ${JSON.stringify(r.processed)}${r.skippedReasons.length ? `; skipped: ${[...new Set(r.skippedReasons.map((x) => x.split(":")[0]))].join(", ")}` : ""})`);
    if (r.failures.length > 0) console.log(`    failed requests: ${r.failures.join("; ")}`);
  }
  console.log();
  printTable(
    ["offered/s", "accepted/s", "ok", "refused+failed", "p50 ms", "p90 ms", "p99 ms", "max ms", "service p99 ms", "late starts"],
    rows.map((r) => [String(r.offeredPerSecond), r.achievedPerSecond, r.ok, r.refused + r.failed, r.latencyMs.p50.toFixed(1), r.latencyMs.p90.toFixed(1), r.latencyMs.p99.toFixed(1), r.latencyMs.max.toFixed(1), r.serviceMs.p99.toFixed(1), r.lateStarts]),
  );
  const file = writeReport("ingress", { rates: RATES, seconds: SECONDS, flights: FLIGHTS, maxInFlight: MAX_IN_FLIGHT, machine, results: rows });
  console.log(`  written ${file}`);
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
