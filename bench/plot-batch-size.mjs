#!/usr/bin/env node
// Draws throughput against batch size (maxRun) from e2e benchmark reports as a hand-written SVG
// (no dependencies): one line per report, the x axis on a log scale.
//   node bench/plot-batch-size.mjs [report.json ...] [--out docs/batch-size.svg]
// Without reports: the two newest bench/results/e2e-*.json that measured maxRun 1, 10, 50, 200, 500.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const outIndex = args.indexOf("--out");
const out = outIndex >= 0 ? args[outIndex + 1] : join(root, "docs", "batch-size.svg");
let files = args.filter((a, i) => a.endsWith(".json") && i !== outIndex + 1);
const WANT = [1, 10, 50, 200, 500];

if (files.length === 0) {
  const dir = join(root, "bench", "results");
  files = readdirSync(dir)
    .filter((f) => /^e2e-.*\.json$/.test(f))
    .sort()
    .reverse()
    .map((f) => join(dir, f))
    .filter((f) => {
      const r = JSON.parse(readFileSync(f, "utf8"));
      return WANT.every((m) => r.results.some((x) => x.maxRun === m));
    })
    .slice(0, 2)
    .reverse();
}
if (files.length === 0) {
  console.error("no e2e report with maxRun 1, 10, 50, 200, 500 in bench/results: run `node bench/run.mjs e2e` first");
  process.exit(1);
}
const series = files.map((f, i) => {
  const r = JSON.parse(readFileSync(f, "utf8"));
  return { label: `run ${i + 1} (${r.at.slice(0, 16).replace("T", " ")} UTC, load ${r.machine?.loadAverage1m ?? "?"})`, points: r.results.map((x) => ({ x: x.maxRun, y: x.messagesPerSecond })).sort((a, b) => a.x - b.x), machine: r.machine };
});

const W = 720;
const H = 420;
const M = { left: 80, right: 30, top: 50, bottom: 80 };
const xs = [...new Set(series.flatMap((s) => s.points.map((p) => p.x)))].sort((a, b) => a - b);
const yMax = Math.max(...series.flatMap((s) => s.points.map((p) => p.y)));
const niceStep = (max) => {
  const raw = max / 5;
  const pow = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 2.5, 5, 10].map((m) => m * pow).find((s) => s >= raw);
};
const step = niceStep(yMax);
const yTop = Math.ceil(yMax / step) * step;
const round1 = (v) => Math.round(v * 10) / 10;
const lx = (x) => round1(M.left + ((Math.log10(x) - Math.log10(xs[0])) / (Math.log10(xs.at(-1)) - Math.log10(xs[0]) || 1)) * (W - M.left - M.right));
const ly = (y) => round1(H - M.bottom - (y / yTop) * (H - M.top - M.bottom));
const colors = ["#1f6feb", "#d1242f", "#2da44e", "#8250df"];
const esc = (s) => String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;");

const parts = [];
parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="Helvetica, Arial, sans-serif" font-size="12">`);
parts.push(`<rect width="${W}" height="${H}" fill="#ffffff"/>`);
parts.push(`<text x="${W / 2}" y="24" text-anchor="middle" font-size="15" font-weight="bold">msgx end to end (MariaDB → PostgreSQL → Kafka): throughput vs maxRun</text>`);
for (let y = 0; y <= yTop; y += step) {
  parts.push(`<line x1="${M.left}" x2="${W - M.right}" y1="${ly(y)}" y2="${ly(y)}" stroke="#e5e5e5"/>`);
  parts.push(`<text x="${M.left - 8}" y="${ly(y) + 4}" text-anchor="end">${y.toLocaleString("en-US")}</text>`);
}
for (const x of xs) {
  parts.push(`<line x1="${lx(x)}" x2="${lx(x)}" y1="${M.top}" y2="${H - M.bottom}" stroke="#f0f0f0"/>`);
  parts.push(`<text x="${lx(x)}" y="${H - M.bottom + 18}" text-anchor="middle">${x}</text>`);
}
parts.push(`<line x1="${M.left}" x2="${W - M.right}" y1="${H - M.bottom}" y2="${H - M.bottom}" stroke="#333"/>`);
parts.push(`<line x1="${M.left}" x2="${M.left}" y1="${M.top}" y2="${H - M.bottom}" stroke="#333"/>`);
parts.push(`<text x="${(M.left + W - M.right) / 2}" y="${H - M.bottom + 40}" text-anchor="middle">maxRun: messages committed per transaction (log scale)</text>`);
parts.push(`<text transform="translate(20 ${(M.top + H - M.bottom) / 2}) rotate(-90)" text-anchor="middle">messages per second</text>`);
series.forEach((s, i) => {
  const c = colors[i % colors.length];
  parts.push(`<polyline fill="none" stroke="${c}" stroke-width="2" points="${s.points.map((p) => `${lx(p.x).toFixed(1)},${ly(p.y).toFixed(1)}`).join(" ")}"/>`);
  for (const p of s.points) {
    parts.push(`<circle cx="${lx(p.x).toFixed(1)}" cy="${ly(p.y).toFixed(1)}" r="4" fill="${c}"/>`);
    parts.push(`<text x="${lx(p.x).toFixed(1)}" y="${(ly(p.y) - 9 - i * 13).toFixed(1)}" text-anchor="middle" fill="${c}" font-size="11">${Math.round(p.y).toLocaleString("en-US")}</text>`);
  }
  parts.push(`<rect x="${M.left + 12}" y="${M.top + 6 + i * 18}" width="14" height="3" fill="${c}"/>`);
  parts.push(`<text x="${M.left + 32}" y="${M.top + 11 + i * 18}">${esc(s.label)}</text>`);
});
const m = series[0].machine ?? {};
parts.push(`<text x="${W / 2}" y="${H - 12}" text-anchor="middle" fill="#555" font-size="11">${esc(`${m.nproc ?? "?"} CPUs, ${m.memoryGiB ?? "?"} GiB; PostgreSQL ${m.postgres ?? "?"}; MariaDB ${String(m.mariadb ?? "?").split("-")[0]}; ${String(m.kafka ?? "").split(" (")[0]}; node bench/run.mjs e2e`)}</text>`);
parts.push(`</svg>`);
writeFileSync(out, `${parts.join("\n")}\n`);
console.log(`plotted ${files.length} report(s) → ${out}`);
