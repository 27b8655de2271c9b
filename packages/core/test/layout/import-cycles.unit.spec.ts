/**
 * The layering rule of docs/architecture.md: no file imports itself back through others, in any
 * package, and core's folders are layers (none imports a folder that imports it back).
 */
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { cycles, folderGraph, importGraph } from "./import-graph.js";

const packagesDir = fileURLToPath(new URL("../../../", import.meta.url));
const packages = readdirSync(packagesDir).filter((p) => p !== "node_modules");

describe("import layering", () => {
  it.each(packages)("packages/%s/src has no import cycle between files", (pkg) => {
    expect(cycles(importGraph(`${packagesDir}${pkg}/src`))).toEqual([]);
  });

  it("core's folders import each other in one direction only", () => {
    expect(cycles(folderGraph(importGraph(`${packagesDir}core/src`)))).toEqual([]);
  });

  it("the checker finds a cycle when there is one", () => {
    const graph = new Map([
      ["a/x.ts", new Set(["b/y.ts"])],
      ["b/y.ts", new Set(["a/z.ts"])],
      ["a/z.ts", new Set<string>()],
    ]);
    expect(cycles(graph)).toEqual([]);
    expect(cycles(folderGraph(graph))).toEqual([["a", "b"]]);
    graph.get("a/z.ts")!.add("a/x.ts");
    expect(cycles(graph)).toEqual([["a/x.ts", "a/z.ts", "b/y.ts"]]);
  });
});
