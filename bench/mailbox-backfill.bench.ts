/**
 * Issue 32 item 8: the cost of the pump's write-back to the MariaDB mailbox per call (docs/benchmarks.md,
 * "Issue 32: the write-back in one statement"), by the way it is written:
 *   transaction  the previous path (bench/backfill): START TRANSACTION, SELECT … FOR UPDATE, UPDATE, COMMIT
 *   autocommit   `MysqlMailbox.backfill`: the UPDATE alone (plus one read when rows were done before)
 * Calls of `--sizes` entries (default 1, the common run at 100 msg/s, and 100) on fresh rows, the
 * same calls replayed (every row done before), and calls on rows of which every other one was done
 * before (the autocommit mode's read after the UPDATE). Each mode has a table of its own; the modes take
 * turns call by call so a neighbour's load falls on both alike. Prints per call: the mean and p50/p99
 * wall time, the process's CPU (user + system) and the statements sent.
 *
 *   node bench/run.mjs mailbox-backfill [--calls 2000] [--sizes 1,100] [--modes transaction,autocommit]
 */
import { loadavg } from "node:os";
import mysql from "mysql2/promise";
import type { BackfillEntry, BackfillResult } from "@msgx/core";
import {
  createMailboxTables,
  DEFAULT_MAILBOX_NAMES,
  dropMailboxTables,
  mailboxPoolOptions,
  MysqlMailbox,
  quoteMailboxNames,
  type MailboxNames,
  type MysqlConnectionLike,
  type MysqlPoolLike,
  type MysqlQueryOptions,
} from "@msgx/adapters-mysql";
import { backfillInTransaction } from "./backfill/backfill-in-transaction.js";

const arg = (name: string, fallback: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
};
const CALLS = Number(arg("calls", "2000"));
const SIZES = arg("sizes", "1,100").split(",").map(Number);
const MODES = arg("modes", "transaction,autocommit").split(",") as Mode[];
const MYSQL_URL = process.env["MSGX_BENCH_MYSQL_URL"] ?? process.env["MSGX_MYSQL_URL"] ?? "mysql://root@127.0.0.1:3306/test";
const AT = Date.UTC(2026, 2, 5, 2, 0, 7);
const meta = { sndr: "AODB", seqn: 480211, dttm: "20260305020000", type: "FLOP", styp: "ESTT" };

type Mode = "transaction" | "autocommit";
type Phase = "fresh" | "replayed" | "half done";

/** `pool` counting the statements sent on it, session set-up aside. */
function countingPool(pool: MysqlPoolLike, count: () => void): MysqlPoolLike {
  return {
    async getConnection(): Promise<MysqlConnectionLike> {
      const c = await pool.getConnection();
      const seen = (o: MysqlQueryOptions) => {
        if (!o.sql.startsWith("SET")) count();
      };
      return { query: (o) => (seen(o), c.query(o)), release: () => c.release(), destroy: () => c.destroy(), connection: c.connection };
    },
  };
}

interface Target {
  readonly mode: Mode;
  readonly names: MailboxNames;
  readonly backfill: (entries: readonly BackfillEntry[]) => Promise<BackfillResult>;
  ms: number[];
  cpuMicros: number;
  /** Statements sent since the phase started. */
  readonly counts: { statements: number };
}

async function open(mode: Mode, pool: MysqlPoolLike, tag: string): Promise<Target> {
  const d = DEFAULT_MAILBOX_NAMES;
  const table = (suffix: string) => `bench_${mode}_${tag}_${process.pid}_${suffix}`;
  const names: MailboxNames = { inbound: { ...d.inbound, table: table("cminmsgs") }, outbound: { ...d.outbound, table: table("coutmsgs") } };
  await createMailboxTables(pool, names);
  const counts = { statements: 0 };
  const counted = countingPool(pool, () => counts.statements++);
  const mailbox = new MysqlMailbox(counted, { names });
  const quoted = quoteMailboxNames(names);
  const backfill = mode === "autocommit" ? (e: readonly BackfillEntry[]) => mailbox.backfill(e) : (e: readonly BackfillEntry[]) => backfillInTransaction(counted, quoted, e);
  return { mode, names, backfill, ms: [], cpuMicros: 0, counts };
}

/** `count` committed rows as the upstream inserts them; their ids. */
async function seed(upstream: mysql.Pool, names: MailboxNames, count: number): Promise<number[]> {
  const { table, columns: c } = quoteMailboxNames(names).inbound;
  const ids: number[] = [];
  for (let i = 0; i < count; i += 1000) {
    const n = Math.min(1000, count - i);
    const [r] = await upstream.query(`INSERT INTO ${table} (${c.clobMsg}, ${c.dateReceived}, ${c.status}) VALUES ?`, [
      Array.from({ length: n }, () => ["<MSG/>", "2026-03-05 02:00:00", "VALID"]),
    ]);
    const first = Number((r as { insertId: number }).insertId);
    for (let k = 0; k < n; k++) ids.push(first + k);
  }
  return ids;
}

const percentile = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

async function measure(size: number, phase: Phase, targets: Target[], ids: Map<Mode, number[]>): Promise<void> {
  for (const t of targets) {
    t.ms = [];
    t.cpuMicros = 0;
    t.counts.statements = 0;
  }
  for (let call = 0; call < CALLS; call++) {
    for (const t of targets) {
      const entries = ids.get(t.mode)!.slice(call * size, (call + 1) * size).map((msgId) => ({ msgId, processedAt: AT, meta }));
      const cpu = process.cpuUsage();
      const start = performance.now();
      const result = await t.backfill(entries);
      t.ms.push(performance.now() - start);
      const used = process.cpuUsage(cpu);
      t.cpuMicros += used.user + used.system;
      const written = phase === "fresh" ? entries.length : phase === "replayed" ? 0 : entries.filter((e) => e.msgId % 2 === 1).length;
      if (result.written.length !== written || result.alreadyDone.length !== entries.length - written) throw new Error(`${t.mode} ${phase}: ${JSON.stringify(result)}`);
    }
  }
  for (const t of targets) {
    const sorted = [...t.ms].sort((a, b) => a - b);
    const mean = t.ms.reduce((a, b) => a + b, 0) / t.ms.length;
    console.log(
      `${String(size).padStart(4)} ${phase.padEnd(9)} ${t.mode.padEnd(12)} mean ${mean.toFixed(3)} ms  p50 ${percentile(sorted, 50).toFixed(3)}  p99 ${percentile(sorted, 99).toFixed(3)}  ` +
        `CPU ${(t.cpuMicros / 1000 / CALLS).toFixed(3)} ms  statements ${(t.counts.statements / CALLS).toFixed(2)} per call`,
    );
  }
}

async function main(): Promise<void> {
  const pool = mysql.createPool({ uri: MYSQL_URL, ...mailboxPoolOptions }) as unknown as MysqlPoolLike & mysql.Pool;
  const upstream = mysql.createPool({ uri: MYSQL_URL, connectionLimit: 2 });
  const [[version]] = (await upstream.query("SELECT VERSION() AS v")) as unknown as [{ v: string }[]];
  console.log(`mailbox write-back, ${CALLS} calls per size and mode, modes taking turns; ${version?.v}; load ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
  console.log("size phase     mode");
  for (const size of SIZES) {
    const targets: Target[] = [];
    const ids = new Map<Mode, number[]>();
    try {
      for (const mode of MODES) {
        const t = await open(mode, pool, String(size));
        targets.push(t);
        ids.set(mode, await seed(upstream, t.names, CALLS * size));
      }
      // A connection opened and its session set before the timer (the modes share the pool).
      await new MysqlMailbox(pool, { names: targets[0]!.names }).scan(0, 1);
      await measure(size, "fresh", targets, ids);
      await measure(size, "replayed", targets, ids);
      if (size > 1) {
        const halfDone = new Map<Mode, number[]>();
        for (const t of targets) {
          const { table, columns: c } = quoteMailboxNames(t.names).inbound;
          const more = await seed(upstream, t.names, CALLS * size);
          await upstream.query(`UPDATE ${table} SET ${c.dateProcessed} = '2026-03-04 00:00:00' WHERE ${c.id} >= ? AND MOD(${c.id}, 2) = 0`, [more[0]]);
          halfDone.set(t.mode, more);
        }
        await measure(size, "half done", targets, halfDone);
      }
    } finally {
      for (const t of targets) await dropMailboxTables(pool, t.names);
    }
  }
  await pool.end();
  await upstream.end();
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
