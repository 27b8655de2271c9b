/**
 * Pump throughput on PostgreSQL: one message per transaction (`maxRun: 1`) against group commit
 * (`maxRun: 200`, `500`) on the same stream, in the same process (SPEC §5). Real PostgreSQL store,
 * in-memory mailbox, the real codec and flight processors, the system clock. Each mode gets a
 * fresh schema holding the same pre-seeded flights; the timer covers draining every message.
 *
 *   node bench/run.mjs pump-store [--messages 20000] [--runs 1,200,500] [--flights 500]
 */
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import {
  defaultProcessors,
  decodeMessage,
  emptyRunDecision,
  FLOP_MATRIX,
  Pump,
  silentLogger,
  systemClock,
} from "@msgx/core";
import { createPgStores } from "@msgx/adapters-pg";
import { InMemoryMailbox } from "../packages/core/src/ports/in-memory-mailbox.js";
import { flidOf, seedFlight } from "./seed-flight.js";

const arg = (name: string, fallback: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
};
const MESSAGES = Number(arg("messages", "20000"));
const FLIGHTS = Number(arg("flights", "500"));
const RUNS = arg("runs", "1,200,500").split(",").map(Number);
const PG_URL = process.env["MSGX_PG_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";

/** A deterministic pseudo-random stream (mulberry32), so every mode sees the same messages. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pad2 = (n: number): string => String(n).padStart(2, "0");


/** FLOP messages of a realistic mix: times, stands, gates, check-in counters, delays. */
function flopStream(count: number): string[] {
  const random = rng(20260305);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const time = () => `05MAR26${pad2(6 + Math.floor(random() * 16))}${pad2(Math.floor(random() * 60))}`;
  const bodies: Record<string, () => string> = {
    ESTT: () => `<ESTT>${time()}</ESTT>`,
    ACTT: () => `<ACTT>${time()}</ACTT>`,
    STND: () => `<STND>A${100 + Math.floor(random() * 80)}</STND>`,
    GTDT: () => `<GTDT GTNO="1"><GATE>A${pad2(1 + Math.floor(random() * 40))}</GATE><PGOT>${time()}</PGOT><PGCT>${time()}</PGCT><GTYP>D</GTYP></GTDT>`,
    CKDT: () =>
      `<CKDT CKNO="1"><CHKC>C${pad2(1 + Math.floor(random() * 60))}</CHKC><CCLS>Y</CCLS><PCOT>${time()}</PCOT><PCCT>${time()}</PCCT><CTYP>D</CTYP></CKDT>` +
      `<CKDT CKNO="2"><CHKC>C${pad2(1 + Math.floor(random() * 60))}</CHKC><CCLS>F</CCLS><PCOT>${time()}</PCOT><PCCT>${time()}</PCCT><CTYP>D</CTYP></CKDT>`,
    DELY: () => `<DELY CODE="${pad2(Math.floor(random() * 99))}" STRT="${time()}" DURA="00${pad2(Math.floor(random() * 60))}">ATC flow</DELY>`,
  };
  const subtypes = Object.keys(bodies).filter((s) => s in FLOP_MATRIX);
  return Array.from({ length: count }, (_, i) => {
    const styp = pick(subtypes);
    const dttm = `20260305${pad2(1 + Math.floor(i / 3600) % 22)}${pad2(Math.floor(i / 60) % 60)}${pad2(i % 60)}`;
    return (
      `<MSG><META><SNDR>AODB</SNDR><SEQN>${100_000 + i}</SEQN><DTTM>${dttm}</DTTM><TYPE>FLOP</TYPE><STYP>${styp}</STYP></META>` +
      `<FLOP><FLID>${flidOf(Math.floor(random() * FLIGHTS))}</FLID>${bodies[styp]!()}</FLOP></MSG>`
    );
  });
}

interface ModeResult {
  readonly maxRun: number;
  readonly messages: number;
  readonly seconds: number;
  readonly messagesPerSecond: number;
  readonly transactions: number;
  readonly succeeded: number;
  readonly events: number;
}

async function runMode(maxRun: number, raws: readonly string[]): Promise<ModeResult> {
  const schema = `msgx_bench_${maxRun}_${process.pid}`;
  const handle = await createPgStores({ connectionString: PG_URL, schema, max: 4 });
  try {
    const { store, db } = handle;
    const seeded = Array.from({ length: FLIGHTS }, (_, i) => seedFlight(i));
    await store.transaction((tx) => tx.applyRun({ ...emptyRunDecision, flights: seeded }));
    const mailbox = new InMemoryMailbox(systemClock);
    const ids = raws.map((raw) => mailbox.insert(raw));
    for (let i = 0; i < ids.length; i += 5_000) {
      const slice = ids.slice(i, i + 5_000);
      await store.enqueue(slice.map((msgId) => ({ msgId, receivedAt: Date.now() })), { horizon: slice[slice.length - 1]! });
    }
    const pump = new Pump(
      {
        store,
        mailbox,
        clock: systemClock,
        logger: silentLogger,
        decode: (raw) => decodeMessage(raw),
        processors: defaultProcessors(),
        // The runner hashes with node:crypto (core's default is a pure, slower SHA-256).
        contentHash: (raw) => createHash("sha256").update(raw, "utf8").digest("hex"),
        horizon: () => Number.MAX_SAFE_INTEGER,
      },
      { maxRun },
    );
    let transactions = 0;
    const started = process.hrtime.bigint();
    for (;;) {
      const step = await pump.step();
      if (step.did === "idle") break;
      if (step.did !== "processed") throw new Error(`unexpected step ${JSON.stringify(step)}`);
      transactions++;
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const count = async (table: "proc_state" | "msg_event", status: string) =>
      Number((await db.selectFrom(table).select((eb) => eb.fn.countAll().as("n")).where("status", "=", status).executeTakeFirstOrThrow()).n);
    const succeeded = await count("proc_state", "SUCCEEDED");
    const events = await count("msg_event", "PENDING");
    return { maxRun, messages: raws.length, seconds, messagesPerSecond: raws.length / seconds, transactions, succeeded, events };
  } finally {
    await handle.db.schema.dropSchema(schema).ifExists().cascade().execute().catch(() => undefined);
    await handle.close();
  }
}

async function main(): Promise<void> {
  const raws = flopStream(MESSAGES);
  console.log(`pump-store: ${MESSAGES} FLOP messages on ${FLIGHTS} flights; modes maxRun ${RUNS.join(", ")}`);
  const results: ModeResult[] = [];
  for (const maxRun of RUNS) {
    const r = await runMode(maxRun, raws);
    results.push(r);
    console.log(
      `  maxRun ${String(maxRun).padStart(3)}: ${r.messagesPerSecond.toFixed(0).padStart(6)} msg/s  (${r.seconds.toFixed(2)} s, ${r.transactions} transactions, ${r.succeeded} succeeded, ${r.events} events)`,
    );
  }
  const baseline = results.find((r) => r.maxRun === 1);
  const ratios = Object.fromEntries(
    results.filter((r) => r !== baseline && baseline).map((r) => [`maxRun${r.maxRun}`, r.messagesPerSecond / baseline!.messagesPerSecond]),
  );
  for (const [mode, ratio] of Object.entries(ratios)) console.log(`  ${mode} / maxRun1: ${ratio.toFixed(1)}x`);
  const handle = await createPgStores({ connectionString: PG_URL, migrate: false });
  const pgVersion = String((await handle.db.selectNoFrom((eb) => eb.fn<string>("version", []).as("v")).executeTakeFirstOrThrow()).v);
  await handle.close();
  const report = {
    bench: "pump-store",
    at: new Date().toISOString(),
    messages: MESSAGES,
    flights: FLIGHTS,
    machine: { cpus: cpus().length, cpu: cpus()[0]?.model, node: process.version, postgres: pgVersion },
    results,
    ratios,
  };
  const dir = join(process.cwd(), "bench", "results");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `pump-store-${report.at.replace(/[:.]/g, "-")}.json`);
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`  written ${file}`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
