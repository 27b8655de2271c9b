/**
 * Rows as a text table: each column as wide as its widest cell, two spaces apart, the last column
 * left unpadded (it may be long), trailing spaces trimmed.
 */
export function textTable(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join("  ").trimEnd();
  return [line(header), ...rows.map(line)];
}
