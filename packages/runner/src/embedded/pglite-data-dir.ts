import { execFile } from "node:child_process";
import { existsSync, readdirSync, renameSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";
import { MsgxError } from "@msgx/core";

/**
 * V8's flag for compiling WebAssembly with its baseline compiler (Liftoff) only: the `msgx` binary
 * sets it for PGlite (see cli.ts), and the init child runs with it: initdb is faster on the baseline
 * tier (docs/benchmarks.md "The embedded runner's memory").
 */
export const BASELINE_WASM_FLAG = "--liftoff-only";

/** The child's whole program: create the cluster (PGlite runs initdb on an empty directory), close, exit. */
const CHILD = [
  "const { PGlite } = require(process.argv[1]);",
  "PGlite.create(process.argv[2]).then((db) => db.close()).then(",
  "  () => process.exit(0),",
  "  (e) => { process.stderr.write(String(e && e.stack || e)); process.exit(1); });",
].join("\n");

/**
 * Creates the PostgreSQL cluster of a PGlite data directory in a short-lived child process, when
 * `dir` holds none yet (no `PG_VERSION`). In process, PGlite's initdb starts a second PostgreSQL
 * and carries the new cluster over through an in-memory archive; the process keeps that heap
 * for good (docs/benchmarks.md "The embedded runner's memory"). A child gives it all back when
 * it exits.
 *
 * The child writes into a sibling directory that is renamed into place once complete, so a start
 * interrupted half way leaves no half-made cluster behind; the caller holds the data-directory
 * lock, so a sibling left by a start that crashed (another pid) is garbage and goes. A non-empty
 * `dir` without `PG_VERSION` is left to PGlite as it is.
 */
export async function initPgliteDataDir(dir: string): Promise<void> {
  if (existsSync(join(dir, "PG_VERSION"))) return;
  if (existsSync(dir) && readdirSync(dir).length > 0) return;
  const prefix = `${basename(dir)}.init-`;
  if (existsSync(dirname(dir))) {
    for (const left of readdirSync(dirname(dir)).filter((n) => n.startsWith(prefix))) rmSync(join(dirname(dir), left), { recursive: true, force: true });
  }
  const staging = join(dirname(dir), `${prefix}${process.pid}`);
  try {
    await childInit(createRequire(modulePath()).resolve("@electric-sql/pglite"), staging);
    rmSync(dir, { recursive: true, force: true });
    renameSync(staging, dir);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

function childInit(pglite: string, dir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [BASELINE_WASM_FLAG, "-e", CHILD, pglite, dir], { maxBuffer: 16 * 1024 * 1024 }, (error, _stdout, stderr) => {
      if (!error) return resolve();
      const why = String(stderr).trim().split("\n").slice(0, 5).join("\n") || error.message;
      reject(new MsgxError("INFRA", `could not create the PGlite data directory ${dir}: ${why}`, { cause: error, retriable: false }));
    });
  });
}

/** This module's URL, to resolve the runner's own `@electric-sql/pglite` from (tsup shims it in the CommonJS build). */
function modulePath(): string {
  return import.meta.url;
}
