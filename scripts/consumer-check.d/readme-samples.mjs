import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** The services a README sample may ask for on its first line (`// needs: postgres, kafka`). */
export const SERVICES = { postgres: 5432, mysql: 3306, kafka: 9092 };

/**
 * Every ```ts (or ```typescript) block of packages/<name>/README.md under `root`, in order:
 * `{ pkg, index, readme, line, code, needs }` where `line` is the README line of the block's first
 * code line (to point a compiler error back at the README) and `needs` the services its first line
 * names (`// needs: postgres, kafka`; text in parentheses is a note). A block is a whole program:
 * the consumer check compiles it and runs it with node.
 */
export function readmeSamples(root) {
  const samples = [];
  const packagesDir = join(root, "packages");
  for (const pkg of readdirSync(packagesDir).sort()) {
    const readme = join(packagesDir, pkg, "README.md");
    if (!existsSync(readme)) continue;
    const lines = readFileSync(readme, "utf8").split("\n");
    let open = null;
    lines.forEach((text, i) => {
      if (open === null) {
        if (/^```(ts|typescript)\s*$/.test(text.trim())) open = { start: i + 2, code: [] };
        return;
      }
      if (text.trim() === "```") {
        const code = open.code.join("\n");
        // `// needs: postgres, kafka (any note in parentheses)`
        const needs = (open.code[0]?.match(/^\s*\/\/\s*needs:\s*(.*)$/)?.[1] ?? "").replace(/\([^)]*\)/g, " ").split(/[\s,|]+/).filter(Boolean);
        samples.push({ pkg, index: samples.filter((s) => s.pkg === pkg).length + 1, readme: `packages/${pkg}/README.md`, line: open.start, code: `${code}\n`, needs });
        open = null;
      } else open.code.push(text);
    });
  }
  return samples;
}

/** The file a sample is written to in the consumer project (`readme/<pkg>-<n>.mts`). */
export const sampleFile = (s) => `readme/${s.pkg}-${s.index}.mts`;

/** Rewrites tsc's `readme/<pkg>-<n>.mts(l,c)` positions to the README line they come from. */
export function pointAtReadme(tscOutput, samples) {
  return tscOutput.replace(/readme\/([\w-]+)-(\d+)\.mts\((\d+),(\d+)\)/g, (all, pkg, index, l, c) => {
    const s = samples.find((x) => x.pkg === pkg && x.index === Number(index));
    return s ? `${s.readme}:${s.line + Number(l) - 1}:${c}` : all;
  });
}
