/**
 * The shipped Grafana dashboard (packages/runner/ops/grafana-dashboard.json, issue 37) is a
 * dashboard Grafana imports: schema 39, one `${DS_PROMETHEUS}` datasource input used by every panel
 * and query, unique panel ids, panels inside the 24-column grid that do not overlap, and a query in
 * every panel for what the issue names (rates, head age, lag per target, dead letters, lease holder,
 * p50/p99). Grafana is not installable here (no Debian package), so its structure is checked; the
 * metric names every query uses are checked against a runner's /metrics by
 * ops-metric-names.e2e.spec.ts, and a real Prometheus evaluates every query in ops-prometheus.e2e.spec.ts.
 */
import { describe, expect, it } from "vitest";
import { concreteQuery, dashboard, dashboardQueries, promqlMetricNames } from "./ops-files.js";

describe("the Grafana dashboard", () => {
  const d = dashboard();
  const panels = d.panels.filter((p) => p.type !== "row");

  it("is schema 39 with one Prometheus datasource input, used by every panel, query and variable", () => {
    expect(d.schemaVersion).toBe(39);
    expect(d.uid).toBe("msgx-pipeline");
    expect(d.__inputs).toEqual([expect.objectContaining({ name: "DS_PROMETHEUS", type: "datasource", pluginId: "prometheus" })]);
    for (const p of panels) {
      expect(p.datasource, p.title).toEqual({ type: "prometheus", uid: "${DS_PROMETHEUS}" });
      expect(p.targets?.length, p.title).toBeGreaterThan(0);
      for (const t of p.targets ?? []) expect(t.datasource?.uid, p.title).toBe("${DS_PROMETHEUS}");
    }
    for (const v of d.templating.list) expect(v.datasource?.uid, v.name).toBe("${DS_PROMETHEUS}");
  });

  it("has unique panel ids and refIds, and panels inside the grid that do not overlap", () => {
    expect(new Set(d.panels.map((p) => p.id)).size).toBe(d.panels.length);
    for (const p of panels) expect(new Set(p.targets!.map((t) => t.refId)).size, p.title).toBe(p.targets!.length);
    const cells = new Map<string, string>();
    for (const p of d.panels) {
      const { x, y, w, h } = p.gridPos;
      expect(x >= 0 && w > 0 && x + w <= 24 && y >= 0 && h > 0, `${p.title} ${JSON.stringify(p.gridPos)}`).toBe(true);
      for (let i = x; i < x + w; i++) {
        for (let j = y; j < y + h; j++) {
          const taken = cells.get(`${i},${j}`);
          expect(taken, `${p.title} overlaps ${taken}`).toBeUndefined();
          cells.set(`${i},${j}`, p.title);
        }
      }
    }
  });

  it("shows rates, head age, lag per target, dead letters, the lease holder and p50/p99 from the histograms", () => {
    const exprs = dashboardQueries(d).map((q) => q.expr);
    const has = (re: RegExp) => expect(exprs.some((e) => re.test(e)), String(re)).toBe(true);
    has(/rate\(msgx_messages_processed_total/);
    has(/msgx_head_age_seconds/);
    has(/max by \(target\) \(msgx_delivery_lag_seconds/);
    has(/msgx_dead_letters/);
    has(/msgx_delivery_dead/);
    has(/max by \(instance\) \(msgx_leader/);
    for (const h of ["msgx_processing_latency_seconds", "msgx_http_request_duration_seconds"]) {
      has(new RegExp(`histogram_quantile\\(0\\.5, .*${h}_bucket`));
      has(new RegExp(`histogram_quantile\\(0\\.99, .*${h}_bucket`));
    }
    has(/msgx_reliable_messages/);
    has(/msgx_tasks/);
  });

  it("reads the metric names out of PromQL, leaving functions, labels, ranges, groupings and variables", () => {
    expect(promqlMetricNames('histogram_quantile(0.99, sum by (le, route) (rate(msgx_http_request_duration_seconds_bucket{job="$job", route=~"a|b"}[$__rate_interval])))')).toEqual(["msgx_http_request_duration_seconds_bucket"]);
    expect(promqlMetricNames("msgx_leader == 0 and max_over_time(msgx_leader[10m]) == 1")).toEqual(["msgx_leader"]);
    expect(promqlMetricNames('sum by (job) (msgx_backlog{status=~"PENDING|FAILED"}) > 100 and on (job) sum(deriv(x_total[10m])) > 0')).toEqual(["msgx_backlog", "x_total"]);
    expect(promqlMetricNames("time() - max(msgx_reconcile_last_pass_timestamp_seconds) offset 5m")).toEqual(["msgx_reconcile_last_pass_timestamp_seconds"]);
    expect(promqlMetricNames('up{job="msgx"} == 0 or absent(msgx_leader) > bool 1e3')).toEqual(["msgx_leader", "up"]);
    expect(concreteQuery('rate(a{job="$job"}[$__rate_interval])', "msgx")).toBe('rate(a{job="msgx"}[1m])');
  });
});
