#!/usr/bin/env node
/**
 * PGlite under V8's two WebAssembly tiers (default: Liftoff, then TurboFan for hot functions) and
 * under Liftoff alone (`--liftoff-only`, what the `msgx` binary sets): open time, the CPU and wall
 * time of a workload shaped like the pump's (per transaction: an upsert of a JSON row, a read of
 * it, an appended event row), and the RSS at the end. Each variant runs in its own process on a
 * data directory made once beforehand, alternating, so load drifts hit both.
 *
 *   node bench/pglite-tiers.mjs [--transactions 3000] [--runs 3]
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

/** The runner's own `@electric-sql/pglite` (the bench package does not depend on it). */
const PGLITE = createRequire(new URL("../packages/runner/package.json", import.meta.url)).resolve("@electric-sql/pglite");
const { values } = parseArgs({ options: { transactions: { type: "string", default: "3000" }, runs: { type: "string", default: "3" }, child: { type: "string" } } });

if (values.child) {
  const { PGlite } = createRequire(import.meta.url)(PGLITE);
  const t0 = performance.now();
  const db = await PGlite.create(values.child, { startParams: [...PGlite.defaultStartParams, "-c", "shared_buffers=16MB"] });
  await db.exec("drop table if exists f; drop table if exists e; create table f (id int primary key, v jsonb, n int); create table e (id serial primary key, k text, payload text)");
  const t1 = performance.now();
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < Number(values.transactions); i++) {
    await db.transaction(async (tx) => {
      await tx.query("insert into f values ($1, $2, 1) on conflict (id) do update set v = excluded.v, n = f.n + 1", [i % 300, JSON.stringify({ a: i, b: "x".repeat(50) })]);
      await tx.query("select * from f where id = $1", [i % 300]);
      await tx.query("insert into e (k, payload) values ($1, $2)", [String(i), "y".repeat(300)]);
    });
  }
  const cpu = process.cpuUsage(cpu0);
  const t2 = performance.now();
  process.stdout.write(JSON.stringify({ openMs: Math.round(t1 - t0), workMs: Math.round(t2 - t1), cpuMs: Math.round((cpu.user + cpu.system) / 1000), rssMb: Math.round(process.memoryUsage().rss / 1048576) }));
  await db.close();
  process.exit(0);
}

const dir = mkdtempSync(join(tmpdir(), "msgx-pglite-tiers-"));
const run = (flags) => JSON.parse(execFileSync(process.execPath, [...flags, new URL(import.meta.url).pathname, "--child", dir, "--transactions", values.transactions], { encoding: "utf8" }));
try {
  run(["--liftoff-only"]); // creates the cluster (initdb), not measured
  console.log(`${values.transactions} transactions, ${values.runs} runs per variant`);
  console.log("variant        | open ms | work ms | CPU ms | RSS MB");
  for (let r = 0; r < Number(values.runs); r++) {
    for (const [name, flags] of [["two tiers", []], ["liftoff only", ["--liftoff-only"]]]) {
      const m = run(flags);
      console.log(`${name.padEnd(14)} | ${String(m.openMs).padStart(7)} | ${String(m.workMs).padStart(7)} | ${String(m.cpuMs).padStart(6)} | ${String(m.rssMb).padStart(6)}`);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
