#!/usr/bin/env node
/**
 * The consumer check (docs/consumer-check.md): the workspace's packages as an integrator gets them.
 * Packs every package of packages/*, installs the tarballs with npm into a new project outside the
 * repository (no workspace links; peers from the registry), and there runs an ESM and a CJS smoke,
 * core's contract suite against an adapter the consumer wrote, tsc under node16 and bundler
 * resolution, publint and arethetypeswrong, and every ```ts sample of the package READMEs; two
 * lean projects check that the fakes need no test framework and the pg adapter no PGlite.
 *
 * Usage: node scripts/consumer-check.mjs [--root <workspace>] [--build] [--keep]
 *   --root   the workspace whose packages/* are checked (default: this repository); its dist/
 *            must be built (`pnpm build`) unless --build is given
 *   --build  run `pnpm build` in the workspace first
 *   --keep   keep the temporary projects and print where they are
 * Prints one line per step with its time; exits 1 when any step failed.
 */
import { createConnection } from "node:net";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { duplicateClasses } from "./consumer-check.d/duplicate-classes.mjs";
import { engineWarnings } from "./consumer-check.d/engine-warnings.mjs";
import { manifestProblems } from "./consumer-check.d/manifest-problems.mjs";
import { pointAtReadme, readmeSamples, sampleFile, SERVICES } from "./consumer-check.d/readme-samples.mjs";
import { lastLines, runCommand, tryCommand } from "./consumer-check.d/run-command.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const fixtures = join(here, "consumer-check.d", "project");
const { values: opts } = parseArgs({ options: { root: { type: "string" }, build: { type: "boolean" }, keep: { type: "boolean" } } });
const root = resolve(opts.root ?? join(here, ".."));
const PNPM = ["-y", "pnpm@10.34.9"];

/**
 * What the consumer installs from the registry besides the tarballs: every peer of the packages,
 * the test framework for the contract suites, and the tools of the check. Versions follow the
 * workspace's devDependencies (read from it), so the check tests what the workspace tests.
 */
const REGISTRY_PACKAGES = ["kysely", "pg", "mysql2", "kafkajs", "@electric-sql/pglite", "vitest", "fast-check", "typescript", "@types/node", "@types/pg"];
const TOOLS = { publint: "0.3.25", "@arethetypeswrong/cli": "0.18.5" };

/** The workspace, the consumer project, the other temporary projects, and what pack made. */
const ctx = { root, project: "", extra: [], tarballs: [], packages: [] };
const results = [];
const started = Date.now();

/** [short name, what it checks, run, { skip, blocks: later steps cannot run without it }] */
const steps = [
  ["build", "pnpm build in the workspace", build, { skip: !opts.build, blocks: true }],
  ["pack", "pnpm pack of every package", pack, { blocks: true }],
  ["manifests", "packed manifests and files: no workspace: range, README, LICENSE, metadata, core as a peer", manifests],
  ["install", "npm install of the tarballs and peers into a new project, no EBADENGINE warning", install, { blocks: true }],
  ["fakes-alone", "@msgx/core alone (no vitest, no fast-check): the fakes load and work from ESM and CJS", fakesAlone],
  ["pg-lean", "@msgx/adapters-pg without PGlite: loads from ESM and CJS, only createPgliteStores asks for it", pgWithoutPglite],
  ["flight-only", "core and the three adapters without @msgx/tasks or @msgx/reliable: installed and loaded from ESM and CJS", flightOnly],
  ["one-copy", "one copy of each class per format, one @msgx/core installed", oneCopy],
  ["tsc-node16", "typecheck and compile the consumer, moduleResolution node16", () => tsc("tsconfig.node16.json")],
  ["tsc-bundler", "typecheck the consumer, moduleResolution bundler", () => tsc("tsconfig.bundler.json")],
  ["smoke-esm", "ESM smoke: decode, a pump on the fakes, an outage that pauses", () => smoke("out/smoke.mjs")],
  ["smoke-cjs", "CJS smoke: decode, a pump on the fakes, an outage that pauses, testing ESM-only", () => smoke("out/smoke.cjs")],
  ["contract", "core's Mailbox contract suite against a consumer-written adapter (vitest)", contract],
  ["publint", "publint --strict on every package", publint],
  ["attw", "arethetypeswrong (node16 profile) on every tarball", attw],
  ["readme", "README ts samples compile and run", readmes],
];

console.log(`consumer check of ${root}`);
let blocked = null;
for (const [name, what, fn, { skip = false, blocks = false } = {}] of steps) {
  if (skip) continue;
  const label = `${name.padEnd(11)} ${what}`;
  if (blocked) {
    results.push({ name, status: "not run" });
    console.log(`---- ${label}: not run (${blocked} failed)`);
    continue;
  }
  const t0 = Date.now();
  try {
    const note = await fn();
    results.push({ name, status: "ok" });
    console.log(`ok   ${label} (${secs(t0)} s)${note ? ` — ${note}` : ""}`);
  } catch (e) {
    results.push({ name, status: "FAIL" });
    console.log(`FAIL ${label} (${secs(t0)} s)\n${indent(e.message)}`);
    if (blocks) blocked = name;
  }
}

for (const dir of [ctx.project, ...ctx.extra].filter(Boolean)) {
  if (opts.keep) console.log(`kept ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
const failed = results.filter((r) => r.status !== "ok");
console.log(
  failed.length === 0
    ? `consumer check: all ${results.length} steps ok (${secs(started)} s)`
    : `consumer check FAILED: ${failed.length} of ${results.length} steps not ok (${secs(started)} s): ${failed.map((r) => `${r.name} ${r.status}`).join(", ")}`,
);
process.exitCode = failed.length === 0 ? 0 : 1;

// ---- steps

async function build() {
  runCommand("npx", [...PNPM, "build"], { cwd: root, timeoutMs: 900_000 });
}

async function pack() {
  ctx.project = mkdtempSync(join(tmpdir(), "msgx-consumer-"));
  const dest = join(ctx.project, "tarballs");
  mkdirSync(dest);
  for (const dir of readdirSync(join(root, "packages")).sort()) {
    const pkgDir = join(root, "packages", dir);
    if (!existsSync(join(pkgDir, "package.json"))) continue;
    const source = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
    if (source.private) continue;
    if (!existsSync(join(pkgDir, "dist"))) throw new Error(`${pkgDir}/dist is missing: build the workspace first (or pass --build)`);
    const before = new Set(readdirSync(dest));
    runCommand("npx", [...PNPM, "pack", "--pack-destination", dest], { cwd: pkgDir });
    const tarball = readdirSync(dest).find((f) => !before.has(f));
    if (!tarball) throw new Error(`pnpm pack in ${pkgDir} wrote no tarball`);
    const path = join(dest, tarball);
    const manifest = JSON.parse(runCommand("tar", ["-xzOf", path, "package/package.json"], { cwd: dest }));
    const files = runCommand("tar", ["-tzf", path], { cwd: dest }).split("\n").filter(Boolean).map((f) => f.replace(/^package\//, ""));
    ctx.tarballs.push(path);
    ctx.packages.push({ name: manifest.name, dir, tarball: path, manifest, files });
  }
  return ctx.packages.map((p) => `${p.name}@${p.manifest.version}`).join(", ");
}

async function manifests() {
  const problems = ctx.packages.flatMap((p) => manifestProblems(p.manifest, p.files, { application: p.dir === "runner" }).map((m) => `${p.name}: ${m}`));
  if (problems.length > 0) throw new Error(problems.join("\n"));
}

async function install() {
  const cwd = ctx.project;
  runCommand("npm", ["init", "-y"], { cwd });
  const registry = [...REGISTRY_PACKAGES.map((name) => `${name}@${workspaceVersion(name)}`), ...Object.entries(TOOLS).map(([n, v]) => `${n}@${v}`)];
  npmInstall(cwd, [...ctx.tarballs, ...registry]);
  for (const file of readdirSync(fixtures)) {
    if (file === "smoke.ts") {
      // One source, both formats: .mts compiles to ESM, .cts to CJS.
      copyFileSync(join(fixtures, file), join(cwd, "smoke.mts"));
      copyFileSync(join(fixtures, file), join(cwd, "smoke.cts"));
    } else copyFileSync(join(fixtures, file), join(cwd, file));
  }
  return `in ${cwd}`;
}

/**
 * A project with nothing but `@msgx/core` installed (its optional peers vitest and fast-check
 * absent): the fakes must need no test framework.
 */
async function fakesAlone() {
  const dir = leanProject("msgx-core-alone-", [tarballOf("@msgx/core")]);
  const problems = ["vitest", "fast-check"].filter((n) => existsSync(join(dir, "node_modules", n))).map((n) => `installing @msgx/core alone installed ${n}`);
  // Seeds a fake mailbox and takes it down: the fault must be core's outage. Should the fakes
  // subpath fail, @msgx/core/testing (where the fakes were before) is tried too, to show why.
  const probe = (load) => `
    const core = await ${load}("@msgx/core");
    let f;
    for (const id of ["@msgx/core/fakes", "@msgx/core/testing"]) {
      try { f = await ${load}(id); break; } catch (e) { console.log(id + ": " + String(e.message).split("\\n")[0]); }
    }
    if (!f) process.exit(1);
    const m = new f.InMemoryMailbox(new f.ManualClock());
    m.insert("<MSG/>");
    m.faults.setDown(true);
    const e = await m.scan(0, 10).then(() => null, (e) => e);
    if (!core.isOutage(e)) console.log("a fake mailbox that is down: " + (e ? "not an outage: " + e.message : "it scanned"));`;
  problems.push(...probeBothFormats(dir, probe));
  if (problems.length > 0) throw new Error(problems.join("\n"));
  return `node_modules ${megabytes(join(dir, "node_modules"))} MB`;
}

/**
 * The pg adapter without PGlite (an optional peer, 27 MB): the package loads from ESM and CJS,
 * and only `createPgliteStores` fails, with core's MsgxError naming the package to install.
 */
async function pgWithoutPglite() {
  const registry = ["kysely", "pg"].map((n) => `${n}@${workspaceVersion(n)}`);
  const dir = leanProject("msgx-pg-lean-", [tarballOf("@msgx/core"), tarballOf("@msgx/adapters-pg"), ...registry]);
  const problems = existsSync(join(dir, "node_modules", "@electric-sql", "pglite")) ? ["installing @msgx/adapters-pg installed @electric-sql/pglite"] : [];
  const probe = (load) => `
    const core = await ${load}("@msgx/core");
    const pg = await ${load}("@msgx/adapters-pg");
    if (typeof pg.createPgStores !== "function") console.log("no createPgStores");
    const e = await pg.createPgliteStores().then(() => null, (e) => e);
    if (!core.isMsgxError(e) || !String(e.message).includes("@electric-sql/pglite")) console.log("createPgliteStores without PGlite: " + (e ? String(e.message).split("\\n")[0] : "it worked"));`;
  problems.push(...probeBothFormats(dir, probe));
  if (problems.length > 0) throw new Error(problems.join("\n"));
  return `node_modules ${megabytes(join(dir, "node_modules"))} MB`;
}

/**
 * An airport team's project: the flight exchange only (core and the three adapters with their
 * drivers). npm installs neither product package nor any file named after one outside the
 * adapters' own `tasks`/`reliable` subpath bundles, and every main entry loads without them.
 */
async function flightOnly() {
  const registry = ["kysely", "pg", "mysql2", "kafkajs"].map((n) => `${n}@${workspaceVersion(n)}`);
  const adapters = ["@msgx/adapters-pg", "@msgx/adapters-mysql", "@msgx/adapters-kafka"];
  const dir = leanProject("msgx-flight-only-", [tarballOf("@msgx/core"), ...adapters.map(tarballOf), ...registry]);
  const nm = join(dir, "node_modules");
  const problems = ["@msgx/tasks", "@msgx/reliable"].filter((n) => findPackageDirs(nm, n).length > 0).map((n) => `installing the flight exchange installed ${n}`);
  const subpathBundle = /^(tasks|reliable)\.(c?js|d\.c?ts)(\.map)?$/;
  for (const name of ["@msgx/core", ...adapters]) {
    const files = listFiles(join(nm, name)).filter((f) => /task|reliable/i.test(f) && !subpathBundle.test(f.replace(/^dist\//, "")));
    if (files.length > 0) problems.push(`${name} installs task or reliable-message files: ${files.join(", ")}`);
  }
  const probe = (load) => `
    for (const [id, name] of ${JSON.stringify([["@msgx/core", "decodeMessage"], ["@msgx/adapters-pg", "createPgStores"], ["@msgx/adapters-mysql", "MysqlMailbox"], ["@msgx/adapters-kafka", "KafkaDeliveryPort"]])}) {
      const m = await ${load}(id);
      if (typeof m[name] !== "function") console.log(id + ": no " + name);
    }`;
  problems.push(...probeBothFormats(dir, probe));
  if (problems.length > 0) throw new Error(problems.join("\n"));
  return `node_modules ${megabytes(nm)} MB, no @msgx/tasks, no @msgx/reliable`;
}

/** The files under `dir`, relative to it. */
function listFiles(dir) {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath ?? e.path, e.name)));
}

async function oneCopy() {
  const nm = join(ctx.project, "node_modules");
  const dirs = ctx.packages.map((p) => join(nm, p.name));
  const problems = duplicateClasses(dirs, nm).map((l) => `class defined twice: ${l}`);
  const cores = findPackageDirs(nm, "@msgx/core");
  if (cores.length !== 1) problems.push(`${cores.length} copies of @msgx/core installed: ${cores.join(", ")}`);
  if (problems.length > 0) throw new Error(problems.join("\n"));
}

async function tsc(config) {
  const r = tryCommand("npx", ["tsc", "-p", config], { cwd: ctx.project });
  if (!r.ok) throw new Error(lastLines(r.output, 60));
}

async function smoke(file) {
  const r = tryCommand("node", [file], { cwd: ctx.project, timeoutMs: 120_000 });
  const lines = r.output.split("\n").filter((l) => /^(not )?ok - /.test(l));
  if (!r.ok || lines.length === 0) throw new Error(r.ok ? `no checks reported:\n${r.output}` : lastLines(r.output, 60));
  return `${lines.length} checks`;
}

async function contract() {
  const report = join(ctx.project, "vitest.json");
  const r = tryCommand("npx", ["vitest", "run", "--reporter=dot", "--reporter=json", "--outputFile.json=vitest.json", "map-mailbox.contract.spec.mts"], {
    cwd: ctx.project,
    timeoutMs: 300_000,
  });
  if (!existsSync(report)) throw new Error(lastLines(r.output, 60));
  const j = JSON.parse(readFileSync(report, "utf8"));
  // A file that fails to load has no failed test of its own: its message is on the file's result.
  const problems = j.testResults.flatMap((file) => [
    ...(file.status === "failed" && file.message ? [`${file.name}: ${file.message.split("\n")[0]}`] : []),
    ...file.assertionResults.filter((a) => a.status === "failed").map((a) => `${a.fullName}: ${(a.failureMessages[0] ?? "").split("\n")[0]}`),
  ]);
  if (!r.ok || problems.length > 0 || j.numTotalTests === 0) {
    throw new Error(problems.length > 0 ? problems.join("\n") : j.numTotalTests === 0 ? "the contract suite ran no test" : lastLines(r.output, 60));
  }
  return `${j.numPassedTests} of ${j.numTotalTests} tests passed`;
}

async function publint() {
  const problems = [];
  for (const p of ctx.packages) {
    // The installed folder holds exactly the published files, so publint need not pack it again.
    const r = tryCommand("npx", ["publint", "run", join("node_modules", p.name), "--strict", "--pack", "false"], { cwd: ctx.project });
    if (!r.ok) problems.push(`${p.name}:\n${indent(lastLines(r.output, 30))}`);
  }
  if (problems.length > 0) throw new Error(problems.join("\n"));
}

async function attw() {
  const problems = [];
  for (const p of ctx.packages) {
    // No rule is ignored: the ESM-only testing entry resolves, typed, under require too (its CJS
    // file throws the clear error), so attw has nothing to forgive.
    const r = tryCommand("npx", ["attw", p.tarball, "--profile", "node16", "--format", "ascii"], { cwd: ctx.project });
    if (!r.ok) problems.push(`${p.name}:\n${indent(lastLines(r.output, 40))}`);
  }
  if (problems.length > 0) throw new Error(problems.join("\n"));
}

async function readmes() {
  const samples = readmeSamples(root);
  const cwd = ctx.project;
  if (samples.length === 0) return "no ts samples in packages/*/README.md";
  mkdirSync(join(cwd, "readme"), { recursive: true });
  for (const s of samples) writeFileSync(join(cwd, sampleFile(s)), s.code);
  writeFileSync(
    join(cwd, "tsconfig.readme.json"),
    JSON.stringify({ extends: "./tsconfig.node16.json", include: ["readme/*.mts"], compilerOptions: { outDir: "out", rootDir: "." } }),
  );
  const problems = [];
  const compiled = tryCommand("npx", ["tsc", "-p", "tsconfig.readme.json"], { cwd });
  if (!compiled.ok) problems.push(`tsc:\n${indent(lastLines(pointAtReadme(compiled.output, samples), 60))}`);
  const up = {};
  for (const [service, port] of Object.entries(SERVICES)) up[service] = await listening(port);
  const notRun = [];
  let ran = 0;
  for (const s of samples) {
    const where = `${s.readme}:${s.line - 1} (sample ${s.index})`;
    const unknown = s.needs.filter((n) => !(n in SERVICES));
    if (unknown.length > 0) {
      problems.push(`${where}: "// needs:" names an unknown service: ${unknown.join(", ")} (known: ${Object.keys(SERVICES).join(", ")})`);
      continue;
    }
    const down = s.needs.filter((n) => !up[n]);
    if (down.length > 0) {
      // CI starts every service: there a sample never goes unrun.
      if (process.env.MSGX_REQUIRE_SERVICES === "1") problems.push(`${where}: needs ${down.join(", ")}, which is not listening`);
      else notRun.push(`${where} (${down.join(", ")} down)`);
      continue;
    }
    const js = sampleFile(s).replace(/\.mts$/, ".mjs");
    const r = tryCommand("node", [join("out", js)], { cwd, timeoutMs: 120_000 });
    ran += 1;
    if (!r.ok) problems.push(`${where} failed when run:\n${indent(lastLines(r.output, 30))}`);
  }
  if (notRun.length > 0) console.log(`NOT RUN — README samples whose services are down:\n${indent(notRun.join("\n"))}`);
  if (problems.length > 0) throw new Error(problems.join("\n"));
  return `${ran} of ${samples.length} samples ran${notRun.length ? `, ${notRun.length} NOT RUN` : ""}`;
}

// ---- helpers

/** A new project outside the repository with just `installs` (tarballs or registry specs); its folder. */
function leanProject(prefix, installs) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  ctx.extra.push(dir);
  runCommand("npm", ["init", "-y"], { cwd: dir });
  npmInstall(dir, installs);
  return dir;
}

/**
 * `npm install` of tarballs and registry specs, tried a second time if the first fails: a dropped
 * registry connection on a CI machine is not a packaging fault. The second failure is reported.
 * An install on the engines the packages declare (node >=20.11) must be clean: npm's EBADENGINE
 * warning (a dependency that wants a newer node) fails the step, naming the package.
 */
function npmInstall(cwd, specs) {
  const args = ["install", "--no-audit", "--no-fund", "--loglevel=warn", ...specs];
  let output;
  try {
    output = runCommand("npm", args, { cwd, timeoutMs: 600_000 });
  } catch (e) {
    console.log(`     npm install failed once, trying again: ${e.message.split("\n").at(-1)}`);
    output = runCommand("npm", args, { cwd, timeoutMs: 600_000 });
  }
  const engines = engineWarnings(output);
  if (engines.length > 0) throw new Error(`npm install on node ${process.version} warned EBADENGINE:\n${engines.join("\n")}`);
}

/**
 * Runs a probe (the body of an async function, given how it loads a module: `import` or
 * `require`) in ESM and in CJS in `dir`. Whatever it prints is a problem, as is a failed exit.
 */
function probeBothFormats(dir, probe) {
  const problems = [];
  for (const [format, args] of [
    ["ESM", ["--input-type=module", "-e", `await (async () => {${probe("import")}\n})();`]],
    ["CJS", ["--input-type=commonjs", "-e", `(async () => {${probe("require")}\n})().catch((e) => { console.log(String(e.message)); process.exitCode = 1; });`]],
  ]) {
    const r = tryCommand("node", args, { cwd: dir });
    if (!r.ok || r.output.trim() !== "") problems.push(`${format}: ${r.output.trim().split("\n").slice(0, 8).join(`\n${" ".repeat(5)}`)}`);
  }
  return problems;
}

function tarballOf(name) {
  return ctx.packages.find((p) => p.name === name).tarball;
}

function megabytes(dir) {
  return Math.round(Number(runCommand("du", ["-sk", dir], { cwd: dir }).split("\t")[0]) / 1024);
}

/** The exact version the workspace installs of a package (root or any package's devDependencies). */
function workspaceVersion(name) {
  const manifests = [join(root, "package.json"), ...readdirSync(join(root, "packages")).map((d) => join(root, "packages", d, "package.json"))];
  for (const file of manifests) {
    if (!existsSync(file)) continue;
    const m = JSON.parse(readFileSync(file, "utf8"));
    const range = m.devDependencies?.[name] ?? m.dependencies?.[name];
    if (range && !range.startsWith("workspace:")) return range;
  }
  throw new Error(`the workspace does not name a version of ${name}`);
}

/** Every installed folder of `name` under a node_modules tree (nested copies included). */
function findPackageDirs(nm, name) {
  const found = [];
  const walk = (dir) => {
    if (existsSync(join(dir, name, "package.json"))) found.push(join(dir, name));
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name === ".bin") continue;
      const sub = join(dir, entry.name);
      const scoped = entry.name.startsWith("@") ? readdirSync(sub).map((n) => join(sub, n)) : [sub];
      for (const pkg of scoped) if (existsSync(join(pkg, "node_modules"))) walk(join(pkg, "node_modules"));
    }
  };
  walk(nm);
  return found;
}

function listening(port) {
  return new Promise((done) => {
    const socket = createConnection({ host: "127.0.0.1", port, timeout: 1000 });
    const end = (up) => {
      socket.destroy();
      done(up);
    };
    socket.once("connect", () => end(true));
    socket.once("error", () => end(false));
    socket.once("timeout", () => end(false));
  });
}

function secs(t0) {
  return ((Date.now() - t0) / 1000).toFixed(1);
}

function indent(text) {
  return text
    .split("\n")
    .map((l) => `     ${l}`)
    .join("\n");
}
