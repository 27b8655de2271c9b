import type { Logger } from "@msgx/core";
import type { MsgxConfig } from "../config/config-schema.js";
import type { HttpContext } from "../http/http-context.js";
import { createHttpServer, DEFAULT_HTTP_TIMEOUTS } from "../http/http-server.js";
import { lateContext } from "../http/late-context.js";
import type { Readiness } from "./readiness.js";
import { createServiceMetrics } from "./service-metrics.js";

/** The runner's HTTP server, listening before any dependency is opened; the pipeline attaches to it. */
export interface ServiceHttp {
  readonly url: string;
  /** The role `/readyz` reports (and `msgx_leader`: 1 exactly while `running`). */
  setReadiness(state: Readiness): void;
  readiness(): Readiness;
  /** Serves the running pipeline's routes; until then they answer 503. */
  attach(ctx: HttpContext): void;
  /** Back to 503 for the pipeline's routes (the pipeline is stopping). */
  detach(): void;
  /** Stops listening and closes every connection. Safe more than once. */
  close(): Promise<void>;
}

/** Starts listening at `http.host:http.port` in the role `starting` (on `dependency`). */
export async function startServiceHttp(config: MsgxConfig, logger: Logger, dependency = "state"): Promise<ServiceHttp> {
  let state: Readiness = { role: "starting", dependency, attempts: 0 };
  const metrics = createServiceMetrics();
  const late = lateContext({
    logger,
    token: config.http.token,
    maxBodyBytes: config.http.maxBodyBytes,
    ...(config.reliable.enabled ? { rm: { token: config.reliable.token ?? config.http.token } } : {}),
    ...(config.tasks.enabled ? { tasks: { token: config.tasks.token ?? config.http.token } } : {}),
    readiness: () => state,
    metrics,
  });
  const http = createHttpServer(late.ctx, { ...DEFAULT_HTTP_TIMEOUTS, headersTimeoutMs: config.http.headersTimeoutMs, requestTimeoutMs: config.http.requestTimeoutMs });
  await http.listen({ port: config.http.port, host: config.http.host });
  const address = http.server.address();
  const url = typeof address === "object" && address ? `http://${address.address}:${address.port}` : `http://${config.http.host}:${config.http.port}`;
  let closing: Promise<void> | undefined;
  return {
    url,
    setReadiness: (next) => {
      state = next;
      metrics.setLeader(next.role === "running");
    },
    readiness: () => state,
    attach: late.attach,
    detach: late.detach,
    close: () => (closing ??= http.close()),
  };
}
