#!/usr/bin/env node
// Runs the deterministic simulation's CLI (sim-cli.ts) without a TS runner, as bench/run.mjs runs a
// benchmark: bundles it with tsup's esbuild into .out/ (resolving @msgx/* to the package sources
// through tsconfig.json paths), then runs it with the arguments given.
//   node packages/runner/test/sim/run.mjs --seeds 100
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "../../../..");
const require = createRequire(import.meta.url);
const esbuild = createRequire(require.resolve("tsup"))("esbuild");
const outfile = join(here, ".out", "sim-cli.mjs");
await esbuild.build({
  entryPoints: [join(here, "sim-cli.ts")],
  outfile,
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  sourcemap: "inline",
  tsconfig: join(root, "tsconfig.json"),
  nodePaths: [join(root, "packages/adapters-pg/node_modules"), join(root, "packages/core/node_modules"), join(root, "packages/runner/node_modules")],
  // Bundled CommonJS dependencies call require(): give the ES module bundle one.
  banner: { js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);' },
  external: ["pg-native", "@electric-sql/pglite"],
  logLevel: "warning",
});
const run = spawnSync(process.execPath, ["--enable-source-maps", outfile, ...process.argv.slice(2)], { stdio: "inherit", cwd: root });
process.exit(run.status ?? 1);
