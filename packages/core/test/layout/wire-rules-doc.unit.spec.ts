/**
 * docs/wire-rules.md lists every WIRE.md rule with the test that holds it (issue 17). This keeps the
 * table true: every cited test file exists, every cited title is in that file (a string search:
 * the `it`/`describe` title, an `it.each` template or case label), and every cited real-day corpus
 * file exists, is in the manifest, and the cited spec runs the manifest. A rule with no test says
 * `none` in both columns, so a missing test is visible rather than hidden by a wrong citation.
 */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { MANIFEST } from "../fixtures/real-day/manifest.js";
import { codeSpans, inSource, tableRows } from "./doc-table.js";

const repo = fileURLToPath(new URL("../../../../", import.meta.url));
const DOC = "docs/wire-rules.md";
const CORPUS = "packages/core/test/fixtures/real-day";

interface Row {
  readonly line: number;
  readonly section: string;
  readonly rule: string;
  readonly file: string;
  readonly names: readonly string[];
}

export function wireRuleRows(markdown: string): Row[] {
  return tableRows(markdown, /^\|\s*WIRE\.md section\s*\|/).map(({ line, cells: [section = "", rule = "", file = "", names = ""] }) => ({
    line,
    section,
    rule,
    file: file === "none" ? "none" : (codeSpans(file)[0] ?? file),
    names: names === "none" ? [] : codeSpans(names),
  }));
}

const rows = wireRuleRows(readFileSync(`${repo}${DOC}`, "utf8"));
const manifestFiles = new Set(MANIFEST.map((e) => e.file));
const CORPUS_FILE = /^\d{3}-[a-z0-9-]+\.xml$/;

describe(`${DOC} cites tests that exist`, () => {
  it("has a table of rules, each row naming a WIRE.md section, a rule, a file and titles (or none, none)", () => {
    expect(rows.length).toBeGreaterThan(100);
    const bad = rows.filter((r) => r.section === "" || r.rule === "" || (r.file === "none") !== (r.names.length === 0));
    expect(bad.map((r) => `line ${r.line}`)).toEqual([]);
  });

  it("covers every section of WIRE.md that states rules", () => {
    const sections = new Set(rows.map((r) => r.section));
    const want = [
      "Mailbox tables",
      "Envelope",
      "SEQN and identity",
      "Body formats",
      "Kinds",
      "Flight record",
      "Snapshot rules",
      "FLOP subtypes",
      "Reference data",
      "Seasonal schedule",
      "Outbound requests",
      "Unknown and unwanted types",
      "Upstream client defects not to copy",
    ];
    expect(want.filter((s) => !sections.has(s))).toEqual([]);
  });

  it("every cited test file exists and holds every cited title", () => {
    const problems: string[] = [];
    for (const r of rows.filter((x) => x.file !== "none")) {
      const path = `${repo}${r.file}`;
      if (!existsSync(path)) {
        problems.push(`line ${r.line}: no file ${r.file}`);
        continue;
      }
      const source = readFileSync(path, "utf8");
      for (const name of r.names) {
        if (CORPUS_FILE.test(name)) {
          if (!existsSync(`${repo}${CORPUS}/${name}`)) problems.push(`line ${r.line}: no corpus file ${name}`);
          if (!manifestFiles.has(name)) problems.push(`line ${r.line}: ${name} is not in the manifest`);
          if (!source.includes("it.each(MANIFEST")) problems.push(`line ${r.line}: ${r.file} does not run the corpus manifest`);
        } else if (!inSource(source, name)) {
          problems.push(`line ${r.line}: ${r.file} has no title ${JSON.stringify(name)}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it("lists every rule without a test under its own heading", () => {
    const doc = readFileSync(`${repo}${DOC}`, "utf8");
    const untested = rows.filter((r) => r.file === "none");
    expect(doc).toContain("## Rules with no test");
    const tail = doc.slice(doc.indexOf("## Rules with no test"));
    for (const r of untested) expect(tail, `line ${r.line}`).toContain(r.section);
  });
});
