/**
 * What a packed package.json and file list lack for publishing (issue 22): every package carries
 * README, LICENSE, `license`, `engines`, `repository`, `publishConfig`, `sideEffects` and an
 * `exports` map whose every file is in the tarball; no `workspace:` range survives packing; a
 * library package (every one but the runner, which is an application) takes `@msgx/core` as a
 * peer, never as a pinned dependency, so a consumer's core is the adapters' core; PGlite is an
 * optional peer. The runner (the application) carries its operations files: alert rules, their
 * tests, the Grafana dashboard, the systemd unit and its environment file (docs/operations.md).
 */
export const RUNNER_OPS_FILES = ["ops/msgx.rules.yml", "ops/msgx.rules.test.yml", "ops/grafana-dashboard.json", "ops/msgx.service", "ops/msgx.env.example"];

export function manifestProblems(manifest, files, { application = false } = {}) {
  const problems = [];
  const text = JSON.stringify(manifest);
  if (text.includes("workspace:")) problems.push(`a workspace: range survived packing: ${text.match(/"[^"]*":"workspace:[^"]*"/g)?.join(", ")}`);
  for (const file of ["README.md", "LICENSE", "package.json"]) {
    if (!files.some((f) => f.toLowerCase() === file.toLowerCase())) problems.push(`no ${file} in the tarball`);
  }
  for (const field of ["license", "engines", "repository", "publishConfig", "sideEffects", "exports"]) {
    if (manifest[field] === undefined) problems.push(`no "${field}" field`);
  }
  // A types or code file the exports map names but the tarball lacks (an unbuilt dist, a `files` gap).
  for (const path of exportTargets(manifest.exports)) {
    if (!files.includes(path.replace(/^\.\//, ""))) problems.push(`the exports map names ${path}, which is not in the tarball`);
  }
  if (application) {
    for (const path of RUNNER_OPS_FILES) if (!files.includes(path)) problems.push(`no ${path} in the tarball (the operations files ship with the runner)`);
  }
  // A bin the tarball lacks installs a broken command.
  for (const path of Object.values(typeof manifest.bin === "string" ? { [manifest.name]: manifest.bin } : (manifest.bin ?? {}))) {
    if (!files.includes(path.replace(/^\.\//, ""))) problems.push(`the bin ${path} is not in the tarball`);
  }
  const deps = manifest.dependencies ?? {};
  if (!application) {
    for (const [name, range] of Object.entries(deps)) {
      if (name.startsWith("@msgx/")) problems.push(`${name} is a dependency ("${range}"), not a peer: version skew nests a second copy`);
    }
  }
  // The product packages are reached by the adapters' subpaths only: a flight-only project must not need them.
  for (const product of ["@msgx/tasks", "@msgx/reliable"]) {
    if (!application && manifest.peerDependencies?.[product] && manifest.peerDependenciesMeta?.[product]?.optional !== true) {
      problems.push(`${product} is a required peer (it should be optional: only the ./tasks or ./reliable subpath needs it)`);
    }
  }
  // PGlite (27 MB) serves only createPgliteStore: a consumer of the pg stores must not need it.
  if (manifest.peerDependencies?.["@electric-sql/pglite"] && manifest.peerDependenciesMeta?.["@electric-sql/pglite"]?.optional !== true) {
    problems.push("@electric-sql/pglite is a required peer (it should be optional)");
  }
  return problems;
}

/** Every file path of an exports map (patterns with `*` left out). */
function exportTargets(value) {
  if (typeof value === "string") return value.includes("*") ? [] : [value];
  if (typeof value !== "object" || value === null) return [];
  return Object.values(value).flatMap(exportTargets);
}
