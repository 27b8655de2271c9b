/**
 * Reading the markdown tables in docs/ that cite the tests holding each rule (docs/wire-rules.md,
 * docs/task-routing.md "States and transitions"), for the layout tests that keep those citations true.
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
