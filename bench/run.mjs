#!/usr/bin/env node
// Runs a TypeScript benchmark without a TS runner: bundles bench/<name>.bench.ts with esbuild
// (the one tsup already installs; resolved through tsup, so no new dependency) into bench/.out,
// resolving @msgx/* to the package sources through tsconfig.json paths, then runs it.
//   node bench/run.mjs pump-store [--messages 20000] [--runs 1,200,500]
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..");
const [name = "pump-store", ...args] = process.argv.slice(2);
const names = readdirSync(here).filter((f) => f.endsWith(".bench.ts")).map((f) => f.slice(0, -".bench.ts".length)).sort();
const usage = `usage: node bench/run.mjs <benchmark> [its options]   (bench/README.md describes each)\nbenchmarks: ${names.join(", ")}\n`;
if (name === "--help" || name === "-h" || name === "help") {
  process.stdout.write(usage);
  process.exit(0);
}
if (!names.includes(name)) {
  process.stderr.write(`no benchmark named "${name}"\n${usage}`);
  process.exit(2);
}
const require = createRequire(import.meta.url);
const esbuild = createRequire(require.resolve("tsup"))("esbuild");

const outfile = join(here, ".out", `${name}.bench.cjs`);
// The runner's ingress thread runs from a file of its own, found beside the bundle that starts it
// (packages/runner/src/http/ingress-worker-file.ts): bundled into .out with every benchmark.
const entries = [
  { entryPoints: [join(here, `${name}.bench.ts`)], outfile },
  { entryPoints: [join(root, "packages/runner/src/http/ingress-worker.ts")], outfile: join(here, ".out", "ingress-worker.cjs") },
];
for (const entry of entries) await esbuild.build({
  ...entry,
  bundle: true,
  platform: "node",
  target: "node20",
  format: "cjs",
  sourcemap: "inline",
  tsconfig: join(root, "tsconfig.json"),
  // Drivers live in the adapter's node_modules (pnpm); pg's optional native binding stays out.
  nodePaths: [join(root, "packages/adapters-pg/node_modules"), join(root, "packages/core/node_modules")],
  external: ["pg-native", "@electric-sql/pglite"],
  logLevel: "warning",
  // CommonJS has no import.meta: give modules that resolve files from it this bundle's own URL, as
  // tsup's shim does in the packages' CommonJS builds.
  define: { "import.meta.url": "__bundleUrl" },
  banner: { js: 'const __bundleUrl = require("node:url").pathToFileURL(__filename).href;' },
});
const run = spawnSync(process.execPath, ["--enable-source-maps", outfile, ...args], { stdio: "inherit", cwd: root });
process.exit(run.status ?? 1);
