import { describe, expect, it } from "vitest";
import { ingressPlan } from "../src/app/service-http.js";
import { loadConfig } from "../src/config/load-config.js";

const config = (overrides: Record<string, string> = {}) => loadConfig({ env: {}, overrides: { dataDir: "/tmp/msgx-ingress-plan", ...overrides } });

describe("where the ingress is served (http.ingressThread)", () => {
  it("keeps it on the main thread, and says why, with the embedded mailbox, in shadow mode, and when switched off", () => {
    expect(ingressPlan(config())).toEqual({ file: undefined, why: "the embedded mailbox (no mysql.url)" });
    expect(ingressPlan(config({ "mysql.url": "mysql://root@127.0.0.1:3306/test", "http.ingressThread": "off" }))).toEqual({ file: undefined, why: "http.ingressThread is off" });
    expect(ingressPlan(config({ "mysql.url": "mysql://root@127.0.0.1:3306/test", shadow: "true" })).file).toBeUndefined();
  });

  it("auto: a thread of its own from 4 CPUs on, the main thread below", () => {
    const mysql = config({ "mysql.url": "mysql://root@127.0.0.1:3306/test" });
    expect(ingressPlan(mysql, 2)).toEqual({ file: undefined, why: "http.ingressThread auto on 2 CPUs (a thread of its own from 4; set on to force it)" });
    expect(ingressPlan(mysql, 4)).toEqual(ingressPlan(config({ "mysql.url": "mysql://root@127.0.0.1:3306/test", "http.ingressThread": "on" }), 2));
  });

  it("on: a thread of its own with the MySQL mailbox, from the built worker (from the sources: the package's dist, or the main thread with the reason)", () => {
    const plan = ingressPlan(config({ "mysql.url": "mysql://root@127.0.0.1:3306/test", "http.ingressThread": "on" }), 2);
    if (plan.file) expect(plan.file.pathname).toMatch(/\/packages\/runner\/dist\/ingress-worker\.js$/);
    else expect(plan.why).toMatch(/no built ingress-worker\.js/);
  });

  it("refuses an unknown setting", () => {
    expect(() => config({ "http.ingressThread": "always" })).toThrow();
  });
});
