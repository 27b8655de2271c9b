import { silentLogger } from "@msgx/core";
import { describe, expect, it } from "vitest";
import { readinessAnswer, type Readiness } from "../src/app/readiness.js";
import { createServiceMetrics } from "../src/app/service-metrics.js";
import type { HttpContext } from "../src/http/http-context.js";
import { createHttpServer } from "../src/http/http-server.js";
import { lateContext } from "../src/http/late-context.js";

describe("readinessAnswer", () => {
  const ok = [{ name: "state", ok: true }];
  it("is 503 naming the role in every phase but running", () => {
    const phases: Readiness[] = [
      { role: "starting", dependency: "kafka", attempts: 1 },
      { role: "starting", dependency: "state", error: "connect ECONNREFUSED", attempts: 4 },
      { role: "standby" },
      { role: "stopping" },
    ];
    for (const state of phases) expect(readinessAnswer(state, ok)).toEqual({ status: 503, body: { ready: false, ...state } });
  });

  it("is 200 running only when every check passes", () => {
    expect(readinessAnswer({ role: "running" }, ok)).toEqual({ status: 200, body: { ready: true, role: "running", checks: ok } });
    const down = [...ok, { name: "kafka", ok: false, error: "timeout" }];
    expect(readinessAnswer({ role: "running" }, down)).toEqual({ status: 503, body: { ready: false, role: "running", checks: down } });
  });
});

describe("the HTTP server before the pipeline runs (lateContext)", () => {
  const setup = () => {
    let state: Readiness = { role: "standby" };
    const metrics = createServiceMetrics();
    const late = lateContext({ logger: silentLogger, token: undefined, maxBodyBytes: 1024, readiness: () => state, metrics });
    const app = createHttpServer(late.ctx);
    return { app, late, metrics, setState: (s: Readiness) => void (state = s) };
  };

  it("answers the probes at once and 503 with retry-after on every pipeline route until attached", async () => {
    const { app, metrics } = setup();
    expect((await app.inject({ url: "/healthz" })).statusCode).toBe(200);
    const ready = await app.inject({ url: "/readyz" });
    expect([ready.statusCode, ready.json()]).toEqual([503, { ready: false, role: "standby" }]);
    for (const [method, url] of [["GET", "/admin/status"], ["GET", "/admin/messages/1"], ["GET", "/admin/reliable-messages"], ["GET", "/all/flights"]] as const) {
      const res = await app.inject({ method, url });
      expect([url, res.statusCode, res.headers["retry-after"]]).toEqual([url, 503, "5"]);
    }
    const ingress = await app.inject({ method: "POST", url: "/cminmsgs/send", headers: { "content-type": "application/xml" }, payload: "<x/>" });
    expect(ingress.statusCode).toBe(503);
    metrics.setLeader(false);
    const text = (await app.inject({ url: "/metrics" })).body;
    expect(text).toMatch(/^msgx_leader 0$/m);
    expect(text).toMatch(/^msgx_http_requests_total\{method="GET",route="\/admin\/messages\/:msgId",status="503"\} 1$/m);
    await app.close();
  });

  it("forwards to the attached context, appends its metrics, and refuses again once detached", async () => {
    const { app, late, metrics, setState } = setup();
    const live = {
      status: async () => ({ marker: "live" }),
      metrics: async () => ({ contentType: "text/plain", body: "msgx_backlog 7\n" }),
      checks: [{ name: "state", check: async () => undefined }],
      reliable: { get: async (id: string) => ({ messageId: id }) },
    } as unknown as HttpContext;
    late.attach(live);
    setState({ role: "running" });
    metrics.setLeader(true);
    expect((await app.inject({ url: "/admin/status" })).json()).toEqual({ marker: "live" });
    expect((await app.inject({ url: "/readyz" })).json()).toEqual({ ready: true, role: "running", checks: [{ name: "state", ok: true }] });
    const text = (await app.inject({ url: "/metrics" })).body;
    expect(text).toMatch(/^msgx_leader 1$/m);
    expect(text).toMatch(/^msgx_backlog 7$/m);
    late.detach();
    setState({ role: "stopping" });
    expect((await app.inject({ url: "/admin/status" })).statusCode).toBe(503);
    expect((await app.inject({ url: "/readyz" })).json()).toEqual({ ready: false, role: "stopping" });
    await app.close();
  });
});
