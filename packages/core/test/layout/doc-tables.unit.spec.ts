/**
 * Every table in README.md, docs/*.md and the package and example READMEs renders as written: a
 * blank line inside a table, or a row with more or fewer cells than its header, is caught here
 * rather than by a reader finding a paragraph of pipes.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { tableProblems } from "./doc-table.js";

const repo = fileURLToPath(new URL("../../../../", import.meta.url));
const readmes = (dir: string) =>
  readdirSync(`${repo}${dir}`)
    .map((p) => `${dir}/${p}/README.md`)
    .filter((f) => existsSync(`${repo}${f}`));
const docs = ["README.md", ...readdirSync(`${repo}docs`).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`), ...readmes("packages"), ...readmes("examples")];

describe("markdown tables render", () => {
  it.each(docs)("%s", (doc) => {
    expect(tableProblems(readFileSync(`${repo}${doc}`, "utf8"))).toEqual([]);
  });

  it("finds a blank line inside a table, a blank between header and separator, and a row of the wrong width", () => {
    const ok = "| a | b |\n|---|---|\n| 1 | `x \\| y` |";
    expect(tableProblems(ok)).toEqual([]);
    expect(tableProblems("| a | b |\n|---|---|\n| 1 | 2 |\n\n| 3 | 4 |")).toEqual(["line 5: table rows with no header separator under the first (a blank line inside the table above?)"]);
    expect(tableProblems("| a | b |\n\n|---|---|\n| 1 | 2 |")).toEqual([
      "line 1: table rows with no header separator under the first",
      "line 3: table rows with no header separator under the first (a blank line inside the table above?)",
    ]);
    expect(tableProblems("| a | b |\n|---|---|\n| 1 | `x | y` |")).toEqual(["line 3: 3 cells, the header has 2"]);
    expect(tableProblems("```\n| not | a table\n```")).toEqual([]);
  });
});
