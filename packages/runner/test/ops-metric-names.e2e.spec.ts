/**
 * Every metric the shipped alert rules and Grafana dashboard name (packages/runner/ops, issue 37)
 * is one the runner exports, so neither can drift from the code: the built `msgx run` on the
 * embedded profile with every service on (the reliable-message service is on by default, the task
 * service is turned on) registers every metric family — the pipeline's, the process's, the
 * services' — and the reconciler's gauges once its first pass finished (30 s after start, the
 * schedule's fixed delay), which the suite waits for. A histogram's `_bucket`/`_sum`/`_count` count
 * as its family; `up` is Prometheus's own.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { exposedFamilies, isExported, namedMetrics } from "./ops-files.js";
import { eventually, spawnRunner, stopRunner, type RunnerProcess } from "./runner-process.js";

const suite = "ops: the metrics rules and dashboard name are exported";
const dataDir = mkdtempSync(join(tmpdir(), "msgx-ops-names-"));
let runner: RunnerProcess | undefined;
afterAll(async () => {
  await stopRunner(runner, suite);
  rmSync(dataDir, { recursive: true, force: true });
});

describe(suite, () => {
  it("every metric a rule or a panel names is in a runner's /metrics", async () => {
    runner = await spawnRunner(["--data-dir", dataDir], { MSGX_TASKS_ENABLED: "true" });
    const scrape = async () => (await fetch(new URL("/metrics", runner!.url))).text();
    // The reconciler's gauges appear with its first finished pass.
    const exposition = await eventually(async () => {
      const text = await scrape();
      return exposedFamilies(text).has("msgx_reconcile_last_pass_timestamp_seconds") ? text : undefined;
    }, 100_000, "the reconciler's first pass");
    const families = exposedFamilies(exposition);
    // Each registry the runner serves is there: the process's, the pipeline's, the two services'.
    for (const family of ["msgx_leader", "process_start_time_seconds", "msgx_head_age_seconds", "msgx_reliable_alerts_total", "msgx_task_failed_total"]) expect(families.has(family), family).toBe(true);

    const used = namedMetrics();
    expect(used.size).toBeGreaterThan(25);
    const missing = [...used].filter(([name]) => !isExported(name, families)).map(([name, where]) => `${name} (${where.join(", ")})`);
    expect(missing).toEqual([]);
  }, 150_000);

  it("tells a histogram's series from a name that is not exported", () => {
    const families = exposedFamilies("# TYPE a_seconds histogram\na_seconds_bucket{le=\"1\"} 0\n# TYPE b gauge\nb 1\n");
    expect(["a_seconds_bucket", "a_seconds_count", "b", "up"].every((n) => isExported(n, families))).toBe(true);
    expect(["b_bucket", "c", "a_second_bucket"].some((n) => isExported(n, families))).toBe(false);
  });
});
