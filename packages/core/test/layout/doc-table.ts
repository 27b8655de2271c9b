/**
 * Reading the markdown tables in docs/ that cite the tests holding each rule (docs/wire-rules.md,
 * docs/task-routing.md "States and transitions"), for the layout tests that keep those citations
 * true; and checking that every table renders (doc-tables.unit.spec.ts).
 */

/** The cells of a table line; `\|` inside a cell is a literal pipe. */
export const cells = (line: string): string[] =>
  line
    .trim()
    .replace(/^\||\|$/g, "")
    .split(/(?<!\\)\|/)
    .map((c) => c.trim().replace(/\\\|/g, "|"));

/** The code spans of a cell: `x` or ``x `with` backticks``. */
export const codeSpans = (cell: string): string[] => [...cell.matchAll(/``\s?(.+?)\s?``|`([^`]+)`/g)].map((m) => (m[1] ?? m[2])!);

/** A title as it may be written in source: as is, or with its double quotes escaped. */
export const inSource = (source: string, title: string): boolean => source.includes(title) || source.includes(title.replace(/"/g, '\\"'));

/**
 * The body rows of the first table whose header line matches `header`: each row's cells and its
 * 1-based line number. The table ends at the first line not starting with `|`.
 */
export function tableRows(markdown: string, header: RegExp): { readonly line: number; readonly cells: string[] }[] {
  const lines = markdown.split("\n");
  const at = lines.findIndex((l) => header.test(l));
  if (at < 0) return [];
  const rows: { line: number; cells: string[] }[] = [];
  for (let i = at + 2; i < lines.length && lines[i]!.startsWith("|"); i++) rows.push({ line: i + 1, cells: cells(lines[i]!) });
  return rows;
}

const SEPARATOR = /^\|(\s*:?-+:?\s*\|)+\s*$/;

/**
 * Why a markdown text's tables would not render as written, one line each (empty: all render).
 * A table is a run of lines starting with `|`; its second line must be the separator (a blank
 * line ends a table, so rows after a blank inside one have no header and show as text), and
 * every row has the header's number of cells (extra cells are dropped, an unescaped `|` in a
 * code span splits the cell). Fenced code blocks are not markdown and are skipped.
 */
export function tableProblems(markdown: string): string[] {
  const lines = markdown.split("\n");
  const problems: string[] = [];
  let fenced = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trimStart().startsWith("```")) fenced = !fenced;
    if (fenced || !line.startsWith("|")) continue;
    const start = i;
    while (i + 1 < lines.length && lines[i + 1]!.startsWith("|")) i++;
    if (!SEPARATOR.test(lines[start + 1] ?? "")) {
      const after = lines[start - 1]?.trim() === "" && lines[start - 2]?.startsWith("|") ? " (a blank line inside the table above?)" : "";
      problems.push(`line ${start + 1}: table rows with no header separator under the first${after}`);
      continue;
    }
    const width = cells(line).length;
    for (let r = start + 2; r <= i; r++) {
      const n = cells(lines[r]!).length;
      if (n !== width) problems.push(`line ${r + 1}: ${n} cells, the header has ${width}`);
    }
  }
  return problems;
}
