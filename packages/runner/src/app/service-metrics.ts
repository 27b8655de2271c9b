import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";

/**
 * The process's own metrics, served by `/metrics` in every role: Node's runtime metrics
 * (`collectDefaultMetrics`), `msgx_leader` and the HTTP requests by route pattern (never the raw
 * URL, so the label set stays bounded) and status.
 */
export function createServiceMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const leader = new Gauge({ name: "msgx_leader", help: "1 while this process leads the pipeline, else 0", registers: [registry] });
  leader.set(0);
  const requests = new Counter({ name: "msgx_http_requests_total", help: "HTTP requests by method, route pattern and status", labelNames: ["method", "route", "status"], registers: [registry] });
  const duration = new Histogram({
    name: "msgx_http_request_duration_seconds",
    help: "HTTP request duration by method, route pattern and status",
    labelNames: ["method", "route", "status"],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [registry],
  });
  return {
    setLeader(leading: boolean): void {
      leader.set(leading ? 1 : 0);
    },
    /** `route` is the matched pattern (`/admin/messages/:id`), or `unmatched`. */
    observeRequest(method: string, route: string, status: number, seconds: number): void {
      const labels = { method, route, status: String(status) };
      requests.inc(labels);
      duration.observe(labels, seconds);
    },
    async render(): Promise<{ contentType: string; body: string }> {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}

export type ServiceMetrics = ReturnType<typeof createServiceMetrics>;
