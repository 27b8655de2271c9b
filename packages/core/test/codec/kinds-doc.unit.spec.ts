/**
 * docs/flight-state.md prints the kinds table and the processors table; both follow the code's
 * one table (`KINDS`) and `defaultProcessors()`, so the page cannot drift from what msgx does.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { KINDS, REFERENCE_TYPES_ROW } from "../../src/codec/type-policy.js";
import { defaultProcessors } from "../../src/flight/default-processors.js";

const doc = readFileSync(fileURLToPath(new URL("../../../../docs/flight-state.md", import.meta.url)), "utf8");

/** The body rows of the markdown table whose header starts with `header`, as cells. */
function tableRows(markdown: string, header: string): string[][] {
  const lines = markdown.split("\n");
  const start = lines.findIndex((l) => l.startsWith(header));
  if (start < 0) return [];
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith("|")) break;
    rows.push(line.split(" | ").map((c) => c.replace(/^\| ?|\s*\|$/g, "")));
  }
  return rows;
}

const ticked = (cell: string): string[] => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);

describe("docs/flight-state.md follows KINDS and defaultProcessors()", () => {
  const kinds = tableRows(doc, "| TYPE | default |");
  const processors = tableRows(doc, "| kind | messages | processor |");

  it("has a row for every TYPE of KINDS, with its default and its kinds", () => {
    for (const row of KINDS) {
      const found = kinds.find(([type]) => (row.type === REFERENCE_TYPES_ROW ? type!.includes("codec.referenceTypes") : ticked(type!).includes(row.type)));
      expect(found, `no row for ${row.type}`).toBeDefined();
      expect(found![1]!.replace(/\*/g, ""), `default of ${row.type}`).toMatch(new RegExp(`^${row.disposition}\\b`));
      for (const kind of row.kinds) expect(ticked(found![2]!), `kinds of ${row.type}`).toContain(kind);
    }
  });

  it("lists exactly the processors defaultProcessors() registers", () => {
    expect(processors.map(([kind]) => ticked(kind!)[0]).sort()).toEqual(Object.keys(defaultProcessors()).sort());
  });
});
