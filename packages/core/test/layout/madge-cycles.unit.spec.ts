/**
 * No import cycle across the packages (issue 34): madge, the tool an integrator would reach for,
 * over every package's src (`npx madge --circular --extensions ts packages/*\/src`), resolving the
 * `@msgx/*` names and the `.js` specifiers through the root tsconfig. import-cycles.unit.spec.ts
 * checks the same rule with our own graph, and core's folder layering besides.
 */
import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../../../", import.meta.url));
const madgeBin = join(dirname(createRequire(join(root, "package.json")).resolve("madge/package.json")), "bin", "cli.js");

describe("madge --circular over packages/*/src", () => {
  it("finds no cycle, in a graph that holds every package", () => {
    const sources = readdirSync(join(root, "packages"))
      .filter((p) => p !== "node_modules")
      .map((p) => `packages/${p}/src`);
    const run = (args: string[]): string => execFileSync(process.execPath, [madgeBin, "--extensions", "ts", "--ts-config", "tsconfig.json", "--no-spinner", ...args, ...sources], { cwd: root, encoding: "utf8" });
    const graph = JSON.parse(run(["--json"])) as Record<string, string[]>;
    // A graph of one package per folder and the arrows between them: the count guards against a run that resolved nothing.
    expect(Object.keys(graph).length).toBeGreaterThan(400);
    expect(Object.values(graph).flat().length).toBeGreaterThan(1000);
    const cycles = JSON.parse(run(["--circular", "--json"])) as string[][];
    expect(cycles).toEqual([]);
  });
});
