import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";

/** A class declaration in bundled output (`class X {`, `class X extends Y {`, `var X = class {`). */
const CLASS_DECLARATION = /(?:^|[\s;(,=])class\s+([A-Za-z_$][\w$]*)\s*(?:extends\b[^{]*)?\{|\b(?:var|let|const)\s+([A-Za-z_$][\w$]*)\s*=\s*class\b/gm;
/** A relative module reference: `from "./x.js"`, `import "./x.js"`, `import("./x.js")`, `require("./x.cjs")`. */
const RELATIVE_REFERENCE = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)["'](\.{1,2}\/[^"']+)["']/g;

/**
 * Every class defined in more than one file of one format among what a consumer can load from the
 * installed packages: the files their `exports`, `main`, `module` and `bin` name, and the chunks
 * those import. A second copy of a class breaks `instanceof` (a fake's MsgxError is not core's, so
 * `isOutage` says false). `.cjs` files are CJS, `.js`/`.mjs` ESM (the packages are `type: module`).
 * Returns lines like `cjs MsgxError: @msgx/core/dist/index.cjs, @msgx/core/dist/testing.cjs`.
 */
export function duplicateClasses(packageDirs, base) {
  const byFormat = { esm: new Map(), cjs: new Map() };
  for (const dir of packageDirs) {
    for (const file of reachableFiles(dir)) {
      const format = file.endsWith(".cjs") ? "cjs" : "esm";
      const seen = new Set();
      for (const m of readFileSync(file, "utf8").matchAll(CLASS_DECLARATION)) {
        const name = m[1] ?? m[2];
        if (seen.has(name)) continue;
        seen.add(name);
        byFormat[format].set(name, [...(byFormat[format].get(name) ?? []), relative(base, file)]);
      }
    }
  }
  const lines = [];
  for (const [format, names] of Object.entries(byFormat)) {
    for (const [name, files] of names) if (files.length > 1) lines.push(`${format} ${name}: ${files.join(", ")}`);
  }
  return lines.sort();
}

/** The JavaScript files of a package a consumer can load: its entry points and what they import. */
function reachableFiles(dir) {
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const entries = [manifest.main, manifest.module, ...leaves(manifest.exports), ...leaves(manifest.bin)];
  const todo = entries.filter((e) => typeof e === "string" && /\.(c|m)?js$/.test(e) && !e.includes("*")).map((e) => join(dir, e));
  const seen = new Set();
  while (todo.length > 0) {
    const file = todo.pop();
    if (seen.has(file) || !existsSync(file)) continue;
    seen.add(file);
    for (const m of readFileSync(file, "utf8").matchAll(RELATIVE_REFERENCE)) todo.push(join(dirname(file), m[1]));
  }
  return [...seen].filter((f) => /\.(c|m)?js$/.test(f));
}

/** Every string in an exports map or bin field, except `types` conditions. */
function leaves(value, key = "") {
  if (typeof value === "string") return key === "types" ? [] : [value];
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([k, v]) => leaves(v, k));
}
