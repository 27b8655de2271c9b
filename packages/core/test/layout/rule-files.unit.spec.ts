/** docs/architecture.md's "Where each rule lives" table names files that exist (one place per rule). */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const repo = fileURLToPath(new URL("../../../../", import.meta.url));

/** The `path` cells of the table between the rule-files markers, one entry per rule. */
export function ruleFiles(markdown: string): { rule: string; files: string[] }[] {
  const start = markdown.indexOf("<!-- rule-files:start -->");
  const end = markdown.indexOf("<!-- rule-files:end -->");
  if (start < 0 || end < start) return [];
  return markdown
    .slice(start, end)
    .split("\n")
    .filter((line) => line.startsWith("| ") && !line.startsWith("| rule"))
    .map((line) => {
      const [rule = "", files = ""] = line.split(" | ");
      return { rule: rule.replace(/^\| /, ""), files: [...files.matchAll(/`([^`]+)`/g)].map((m) => m[1]!) };
    });
}

describe("docs/architecture.md: where each rule lives", () => {
  const rows = ruleFiles(readFileSync(`${repo}docs/architecture.md`, "utf8"));

  it("has the table, every rule naming at least one file", () => {
    expect(rows.length).toBeGreaterThanOrEqual(25);
    for (const r of rows) expect(r.files, r.rule).not.toEqual([]);
  });

  it("names only files that exist", () => {
    const missing = rows.flatMap((r) => r.files.filter((f) => !existsSync(`${repo}${f}`)).map((f) => `${r.rule}: ${f}`));
    expect(missing).toEqual([]);
  });

  it("reads the files of a row and refuses a table without markers", () => {
    const md = "<!-- rule-files:start -->\n| rule | file |\n|---|---|\n| a rule | `x/a.ts`, `x/b.ts` |\n<!-- rule-files:end -->";
    expect(ruleFiles(md)).toEqual([{ rule: "a rule", files: ["x/a.ts", "x/b.ts"] }]);
    expect(ruleFiles("| a rule | `x/a.ts` |")).toEqual([]);
  });
});
