/**
 * The shipped Prometheus alert rules (packages/runner/ops/msgx.rules.yml, issue 37): each alert
 * has a severity, a summary, a description and a runbook link to its own section of
 * docs/operations.md (and every section there has its alert); `promtool check rules` accepts the
 * file and `promtool test rules` passes its unit tests — which must fail when a rule's threshold
 * changes, so they test something. Without promtool (Debian's `prometheus` package) the promtool
 * part is NOT RUN, a failure under MSGX_REQUIRE_SERVICES=1.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { afterAll, describe, expect, it } from "vitest";
import { alertRules, gateBinary, headingAnchor, PROMTOOL, RULES_FILE, RULES_TEST_FILE, runbookSections, runTool } from "./ops-files.js";

const RUNBOOK_BASE = "https://github.com/msgx/msgx/blob/main/docs/operations.md#";

describe("the alert rules", () => {
  const rules = alertRules();

  it("cover what issue 37 asks for: the FIFO head, backlog, dead letters, delivery lag, leadership, backfill, the reconciler, the services, the runner, the ingress", () => {
    expect(rules.map((r) => r.alert)).toEqual(
      expect.arrayContaining([
        "MsgxHeadOld",
        "MsgxHeadStuck",
        "MsgxBacklogGrowing",
        "MsgxDeadLetter",
        "MsgxDeliveryLagging",
        "MsgxNoLeader",
        "MsgxLeadershipLost",
        "MsgxTwoLeaders",
        "MsgxBackfillDebtNotDraining",
        "MsgxReconcileProcessedWithoutTerminal",
        "MsgxReliableCheckbackInconclusive",
        "MsgxReliableMessageDead",
        "MsgxReliableDeliveryDead",
        "MsgxTaskCallbackOverdue",
        "MsgxTaskFailed",
        "MsgxTaskOverdue",
        "MsgxRunnerDown",
        "MsgxIngressRefusing",
      ]),
    );
    expect(new Set(rules.map((r) => r.alert)).size).toBe(rules.length);
  });

  it.each(alertRules().map((r) => [r.alert, r] as const))("%s has a severity, a summary, a description and its runbook's link", (name, rule) => {
    expect(["critical", "warning"]).toContain(rule.labels["severity"]);
    expect(rule.annotations["summary"]?.length).toBeGreaterThan(30);
    expect(rule.annotations["description"]?.length).toBeGreaterThan(30);
    expect(rule.annotations["runbook_url"]).toBe(`${RUNBOOK_BASE}${headingAnchor(name)}`);
  });

  it("docs/operations.md has one runbook section per alert, in the rules' order, and none without an alert", () => {
    expect(runbookSections()).toEqual(rules.map((r) => r.alert));
  });

  it("finds the runbook sections of the alerts chapter only", () => {
    const doc = "# Ops\n## Alerts and runbooks\n\n### MsgxA\ntext\n### MsgxB\n## Tracing\n### MsgxC\n";
    expect(runbookSections(doc)).toEqual(["MsgxA", "MsgxB"]);
    expect(headingAnchor("MsgxDeliveryLagging")).toBe("msgxdeliverylagging");
  });

  it("the promtool tests expect every alert to fire at least once", () => {
    const tests = parse(readFileSync(RULES_TEST_FILE, "utf8")) as { tests: { alert_rule_test?: { alertname: string; exp_alerts?: unknown[] }[] }[] };
    const fired = new Set(tests.tests.flatMap((t) => (t.alert_rule_test ?? []).filter((a) => (a.exp_alerts ?? []).length > 0).map((a) => a.alertname)));
    expect(rules.map((r) => r.alert).filter((a) => !fired.has(a))).toEqual([]);
  });
});

const suite = "alert rules under promtool";
const promtool = await gateBinary(PROMTOOL, "prometheus", suite);
const scratch = mkdtempSync(join(tmpdir(), "msgx-rules-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe.skipIf(!promtool.available)(suite, () => {
  it("promtool check rules accepts msgx.rules.yml", async () => {
    const r = await runTool(PROMTOOL, ["check", "rules", RULES_FILE]);
    expect(r, r.stdout + r.stderr).toMatchObject({ code: 0 });
    expect(r.stdout + r.stderr).toContain(`SUCCESS: ${alertRules().length} rules found`);
  });

  it("promtool test rules passes msgx.rules.test.yml", async () => {
    const r = await runTool(PROMTOOL, ["test", "rules", RULES_TEST_FILE]);
    expect(r, r.stdout + r.stderr).toMatchObject({ code: 0 });
    expect(r.stdout + r.stderr).toContain("SUCCESS");
  });

  it("the same tests fail against a copy whose delivery-lag threshold moved from 30 s to 300 s", async () => {
    const rules = readFileSync(RULES_FILE, "utf8");
    const moved = rules.replace("expr: msgx_delivery_lag_seconds > 30\n", "expr: msgx_delivery_lag_seconds > 300\n");
    expect(moved).not.toBe(rules);
    writeFileSync(join(scratch, "msgx.rules.yml"), moved);
    copyFileSync(RULES_TEST_FILE, join(scratch, "msgx.rules.test.yml"));
    const r = await runTool(PROMTOOL, ["test", "rules", "msgx.rules.test.yml"], scratch);
    expect(r.code).not.toBe(0);
    expect(r.stdout + r.stderr).toMatch(/FAILED[\s\S]*MsgxDeliveryLagging/);
  });
});
