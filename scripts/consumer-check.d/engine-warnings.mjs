/** npm's EBADENGINE warnings, one line per package: `cookie@2.0.2 wants node >=22`. */
export function engineWarnings(npmOutput) {
  const lines = npmOutput.split("\n").filter((l) => l.includes("EBADENGINE"));
  const found = [];
  for (const [i, line] of lines.entries()) {
    const pkg = /package: '([^']+)'/.exec(line)?.[1];
    if (!pkg) continue;
    const wanted = lines.slice(i).map((l) => /required: \{ node: '([^']+)'/.exec(l)?.[1]).find(Boolean);
    found.push(`${pkg} wants node ${wanted ?? "(see npm's output)"}`);
  }
  return found.length > 0 || lines.length === 0 ? found : lines;
}
