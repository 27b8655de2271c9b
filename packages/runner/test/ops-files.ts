/**
 * The runner's operations files (packages/runner/ops: alert rules and their promtool tests, the
 * Grafana dashboard, the systemd unit) as the ops suites read them, and the metric names their
 * PromQL uses — so a rule or a panel naming a metric the runner does not export is caught.
 */
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { parse } from "yaml";
import { gateService, type ServiceGate } from "@msgx/core/testing";

export const OPS_DIR = fileURLToPath(new URL("../ops/", import.meta.url));
export const RULES_FILE = `${OPS_DIR}msgx.rules.yml`;
export const RULES_TEST_FILE = `${OPS_DIR}msgx.rules.test.yml`;
export const DASHBOARD_FILE = `${OPS_DIR}grafana-dashboard.json`;
export const UNIT_FILE = `${OPS_DIR}msgx.service`;
export const OPERATIONS_DOC = fileURLToPath(new URL("../../../docs/operations.md", import.meta.url));

export const PROMTOOL = "/usr/bin/promtool";
export const PROMETHEUS = "/usr/bin/prometheus";
export const SYSTEMD_ANALYZE = "/usr/bin/systemd-analyze";

export interface AlertRule {
  readonly alert: string;
  readonly expr: string;
  readonly for?: string;
  readonly labels: Record<string, string>;
  readonly annotations: Record<string, string>;
}

/** Every alert of the rules file (or of `text`, a copy of it), in file order with its group's name. */
export function alertRules(text = readFileSync(RULES_FILE, "utf8")): (AlertRule & { group: string })[] {
  const doc = parse(text) as { groups: { name: string; rules: AlertRule[] }[] };
  return doc.groups.flatMap((g) => g.rules.map((r) => ({ ...r, labels: r.labels ?? {}, annotations: r.annotations ?? {}, group: g.name })));
}

interface DashboardPanel {
  readonly id: number;
  readonly type: string;
  readonly title: string;
  readonly gridPos: { h: number; w: number; x: number; y: number };
  readonly datasource?: { type: string; uid: string };
  readonly targets?: { refId: string; expr: string; datasource?: { uid: string } }[];
}

export interface Dashboard {
  readonly schemaVersion: number;
  readonly uid: string;
  readonly title: string;
  readonly __inputs: { name: string; type: string; pluginId: string }[];
  readonly panels: DashboardPanel[];
  readonly templating: { list: { name: string; query: { query: string } | string; datasource?: { uid: string } }[] };
}

export const dashboard = (): Dashboard => JSON.parse(readFileSync(DASHBOARD_FILE, "utf8")) as Dashboard;

/** The dashboard's PromQL: every panel target, and each template variable's `label_values(<metric>, <label>)` as `<metric>`. */
export function dashboardQueries(d: Dashboard = dashboard()): { where: string; expr: string }[] {
  const targets = d.panels.flatMap((p) => (p.targets ?? []).map((t) => ({ where: `panel "${p.title}" ${t.refId}`, expr: t.expr })));
  const variables = d.templating.list.map((v) => {
    const query = typeof v.query === "string" ? v.query : v.query.query;
    const m = /^label_values\(\s*([^,]+?)\s*,\s*\w+\s*\)$/.exec(query);
    return { where: `variable ${v.name}`, expr: m ? m[1]! : query };
  });
  return [...targets, ...variables];
}

/** Grafana's variables made concrete, so a dashboard query can be sent to a real Prometheus. */
export const concreteQuery = (expr: string, job: string): string => expr.replaceAll("$__rate_interval", "1m").replaceAll("$job", job);

const KEYWORDS = new Set(["by", "without", "on", "ignoring", "group_left", "group_right", "and", "or", "unless", "offset", "bool", "inf", "nan"]);

/**
 * The metric names a PromQL expression selects. Strings, label matchers `{…}`, ranges `[…]`,
 * grouping lists (`by (…)`, `on (…)`, …), Grafana variables and numbers are removed first; what
 * remains is a metric name unless a `(` follows it (a function or an aggregation) or it is a keyword.
 */
export function promqlMetricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""')
    .replace(/\{[^}]*\}/g, " ")
    .replace(/\[[^\]]*\]/g, " ")
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, " ")
    .replace(/\$\{?\w+\}?/g, " ");
  const names = new Set<string>();
  for (const m of bare.matchAll(/(?<![\w.])([A-Za-z_:][\w:]*)(\s*\()?/g)) {
    if (m[2] !== undefined || KEYWORDS.has(m[1]!.toLowerCase())) continue;
    names.add(m[1]!);
  }
  return [...names].sort();
}

/** Metric families of a Prometheus text exposition, by name: their `# TYPE`. */
export function exposedFamilies(exposition: string): Map<string, string> {
  return new Map([...exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1]!, m[2]!]));
}

/** Series Prometheus makes itself rather than scraping them: a rule may use them, no runner exports them. */
export const PROMETHEUS_MADE = new Set(["up"]);

/** Whether `name` is a series of an exposed family: the family itself, or a histogram's `_bucket`/`_sum`/`_count`. */
export function isExported(name: string, families: Map<string, string>): boolean {
  if (families.has(name) || PROMETHEUS_MADE.has(name)) return true;
  const m = /^(.*)_(bucket|sum|count)$/.exec(name);
  return m !== null && ["histogram", "summary"].includes(families.get(m[1]!) ?? "");
}

/** Every metric a rule or a dashboard query names, each with where it is used. */
export function namedMetrics(): Map<string, string[]> {
  const used = new Map<string, string[]>();
  const add = (where: string, expr: string) => {
    for (const name of promqlMetricNames(expr)) used.set(name, [...(used.get(name) ?? []), where]);
  };
  for (const r of alertRules()) add(`rule ${r.alert}`, r.expr);
  for (const q of dashboardQueries()) add(q.where, q.expr);
  return used;
}

/** The `### <Alert>` sections of docs/operations.md's "Alerts and runbooks" chapter. */
export function runbookSections(doc = readFileSync(OPERATIONS_DOC, "utf8")): string[] {
  const chapter = /^## Alerts and runbooks$([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(doc);
  if (!chapter) return [];
  return [...chapter[1]!.matchAll(/^### (Msgx\w+)$/gm)].map((m) => m[1]!);
}

/** The anchor GitHub gives a heading: lower case, spaces to `-`, punctuation dropped. */
export const headingAnchor = (heading: string): string => heading.toLowerCase().replace(/[^\w\- ]/g, "").replace(/ /g, "-");

const run = promisify(execFile);

/** Runs a tool; resolves with its exit code and output instead of throwing on a non-zero exit. */
export async function runTool(cmd: string, args: readonly string[], cwd?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(cmd, [...args], { cwd, timeout: 120_000, encoding: "utf8" });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code?: number | string; stdout?: string; stderr?: string };
    return { code: typeof err.code === "number" ? err.code : -1, stdout: err.stdout ?? "", stderr: err.stderr ?? String(e) };
  }
}

/** Gates a suite on a binary of a Debian package: NOT RUN with the install line when it is missing, a failure under MSGX_REQUIRE_SERVICES=1. */
export function gateBinary(path: string, debianPackage: string, suite: string): Promise<ServiceGate> {
  return gateService(path, suite, async () => {
    if (!existsSync(path)) throw new Error(`${path} is missing (apt-get install -y --no-install-recommends ${debianPackage})`);
  });
}
