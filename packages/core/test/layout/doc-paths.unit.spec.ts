/**
 * Every source file README.md and docs/*.md name in backticks exists, so a move or a rename
 * cannot leave the docs pointing at nothing. A path is `packages/…`, `bench/…`, `examples/…`, or a
 * path inside a package's `src` (`codec/type-policy.ts`, `adapters-pg/src/…`), resolved against
 * every package.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const repo = fileURLToPath(new URL("../../../../", import.meta.url));
const packages = readdirSync(`${repo}packages`).filter((p) => p !== "node_modules");

/** The backticked `…/x.ts|.mjs|.sql|.json` paths of a markdown text (globs and placeholders left out). */
export function namedPaths(markdown: string): string[] {
  const paths = [...markdown.matchAll(/`([A-Za-z0-9_./-]+\/[A-Za-z0-9_.-]+\.(?:ts|mjs|sql|json))(?::\d+)?`/g)].map((m) => m[1]!);
  return [...new Set(paths)].filter((p) => !p.includes("*") && !p.includes("<"));
}

/** Where a named path may live: the repository root, a package, a package's src. */
export const candidates = (path: string): string[] => [
  path,
  ...packages.flatMap((p) => [`packages/${p}/${path}`, `packages/${p}/src/${path}`]),
  `packages/${path}`,
];

const docs = ["README.md", ...readdirSync(`${repo}docs`).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];

describe("docs name files that exist", () => {
  it.each(docs)("%s", (doc) => {
    const missing = namedPaths(readFileSync(`${repo}${doc}`, "utf8")).filter((p) => !candidates(p).some((c) => existsSync(`${repo}${c}`)));
    expect(missing).toEqual([]);
  });

  it("reads paths from backticks only, skipping globs and placeholders", () => {
    expect(namedPaths("see `codec/xml-tree.ts` and `packages/*/src/x.ts`, `a/<name>.ts`, codec/y.ts")).toEqual(["codec/xml-tree.ts"]);
  });
});
