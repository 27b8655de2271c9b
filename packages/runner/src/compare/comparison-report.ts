import type { FlightComparison, FlightDifference } from "@msgx/core";

/** Where each side was read from, and what was selected: the head of both reports. */
export interface ComparisonSources {
  readonly ours: string;
  readonly theirs: string;
  /** The operation days compared; empty = every flight. */
  readonly operationDays: readonly string[];
}

/** The JSON report (`msgx compare --json`, `POST /admin/compare`): the sources, then the comparison as `compareFlights` returns it. */
export type ComparisonReport = ComparisonSources & FlightComparison;

export function comparisonJson(result: FlightComparison, sources: ComparisonSources): ComparisonReport {
  return { ours: sources.ours, theirs: sources.theirs, operationDays: sources.operationDays, ...result };
}

/**
 * The report for people: one line of verdict and counts, the differences per path, then per flight
 * what differs with both values. An absent value reads `(absent)`, apart from a stated `null`.
 */
export function comparisonText(result: FlightComparison, sources: ComparisonSources): string {
  const { flights } = result;
  const days = sources.operationDays.length ? `operation days ${sources.operationDays.join(", ")}` : "all operation days";
  const lines = [
    `ours   (msgx):  ${sources.ours}: ${flights.ours} flights`,
    `theirs (other): ${sources.theirs}: ${flights.theirs} flights`,
    `compared: ${days}; ${flights.both} flights on both sides; ignored: ${result.ignored.join(", ")}`,
    "",
    result.agree ? "AGREE: no difference." : `DIFFER: ${flights.differing} flight(s), ${result.differences.length} difference(s).`,
  ];
  if (result.agree) return `${lines.join("\n")}\n`;
  lines.push("", "by field:");
  const paths = Object.entries(result.byPath).sort(([a], [b]) => (a < b ? -1 : 1));
  const width = Math.max(...paths.map(([p]) => p.length));
  for (const [path, n] of paths) lines.push(`  ${path.padEnd(width)}  ${n}`);
  lines.push("", "by flight:");
  let flid: string | undefined;
  for (const d of result.differences) {
    if (d.flid !== flid) lines.push(`  ${(flid = d.flid)}`);
    lines.push(`    ${differenceLine(d)}`);
  }
  return `${lines.join("\n")}\n`;
}

function differenceLine(d: FlightDifference): string {
  switch (d.kind) {
    case "missing":
      return d.missingFrom === "ours" ? "missing in msgx (only the other system has it)" : "missing in the other system (only msgx has it)";
    case "field":
      return `${d.path}: ours ${shown(d, "ours")}, theirs ${shown(d, "theirs")}`;
    case "row":
      if (d.change === "added") return `${d.path} row ${d.key}: only in msgx ${JSON.stringify(d.ours)}`;
      if (d.change === "removed") return `${d.path} row ${d.key}: only in the other system ${JSON.stringify(d.theirs)}`;
      return `${d.path} row ${d.key}: ${(d.values ?? []).map((v) => `${v}: ours ${shown(d.ours ?? {}, v)}, theirs ${shown(d.theirs ?? {}, v)}`).join("; ")}`;
  }
}

function shown(values: object, key: string): string {
  return Object.hasOwn(values, key) ? JSON.stringify((values as Record<string, unknown>)[key]) : "(absent)";
}
