import { availableParallelism } from "node:os";
import { errorMessage, MsgxError, type Logger } from "@msgx/core";
import type { MsgxConfig } from "../config/config-schema.js";
import type { HttpContext } from "../http/http-context.js";
import { createHttpServer, DEFAULT_HTTP_TIMEOUTS } from "../http/http-server.js";
import { startIngressThread, type IngressThread } from "../http/ingress-thread.js";
import { ingressWorkerFile } from "../http/ingress-worker-file.js";
import { lateContext } from "../http/late-context.js";
import { mysqlMailboxOptions } from "./mysql-mailbox-options.js";
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
  /** Stops listening, lets the requests in flight be answered, closes every connection. Safe more than once. */
  close(): Promise<void>;
  /** The ingress thread, when `POST /cminmsgs/send` is served on one (`http.ingressThread`). */
  readonly ingressThread: IngressThread | undefined;
}

/**
 * `http.ingressThread: auto` gives the ingress a thread from this many CPUs on. On fewer, shared
 * with PostgreSQL, MariaDB and Kafka, the thread answers sooner but takes CPU the pipeline needs,
 * and commit → ack gets slower (docs/operations.md "The ingress thread"; figures in
 * docs/benchmarks.md "2026-12-02: toward the limit").
 */
export const INGRESS_THREAD_MIN_CPUS = 4;

/** Where the ingress is served: its own thread, or — and why — the main thread. `cpus`: the machine's (`availableParallelism`). */
export function ingressPlan(config: MsgxConfig, cpus = availableParallelism()): { readonly file: URL } | { readonly file: undefined; readonly why: string } {
  if (config.http.ingressThread === "off") return { file: undefined, why: "http.ingressThread is off" };
  if (config.mysql.url === undefined) return { file: undefined, why: "the embedded mailbox (no mysql.url)" };
  if (config.http.ingressThread === "auto" && cpus < INGRESS_THREAD_MIN_CPUS) {
    return { file: undefined, why: `http.ingressThread auto on ${cpus} CPUs (a thread of its own from ${INGRESS_THREAD_MIN_CPUS}; set on to force it)` };
  }
  if (config.shadow) return { file: undefined, why: "shadow mode (the ingress refuses every message)" };
  const file = ingressWorkerFile();
  return file ? { file } : { file: undefined, why: "no built ingress-worker.js beside the runner nor in the package's dist (running from sources unbuilt)" };
}

/**
 * Starts listening at `http.host:http.port` in the role `starting` (on `dependency`). With the
 * MySQL mailbox (`http.ingressThread` auto), the listener is the ingress thread: it serves the
 * ingress and hands every other request to this server, which then never listens itself.
 */
export async function startServiceHttp(config: MsgxConfig, logger: Logger, dependency = "state"): Promise<ServiceHttp> {
  let state: Readiness = { role: "starting", dependency, attempts: 0 };
  let live: HttpContext | undefined;
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
  const timeouts = { ...DEFAULT_HTTP_TIMEOUTS, headersTimeoutMs: config.http.headersTimeoutMs, requestTimeoutMs: config.http.requestTimeoutMs };
  const http = createHttpServer(late.ctx, timeouts);
  const plan = ingressPlan(config);
  let thread: IngressThread | undefined;
  let url: string;
  if (plan.file && config.mysql.url !== undefined) {
    await http.ready();
    thread = await startIngressThread({
      file: plan.file,
      data: {
        host: config.http.host,
        port: config.http.port,
        token: config.http.token,
        maxBodyBytes: config.http.maxBodyBytes,
        timeouts,
        logLevel: config.log.level,
        mysqlUrl: config.mysql.url,
        mailbox: mysqlMailboxOptions(config),
        state: { accepting: false, role: state.role },
      },
      app: http,
      logger,
      onAppended: (appends) => live?.appendedElsewhere?.(appends),
      onObserved: (observed) => {
        for (const [method, route, status, seconds] of observed) metrics.observeRequest(method, route, status, seconds);
      },
    }).catch(async (e: unknown) => {
      await http.close();
      throw listenRefused(e, config);
    });
    url = thread.url;
    logger.info("http ingress on its own thread", { listen: url });
  } else {
    await http.listen({ port: config.http.port, host: config.http.host }).catch((e: unknown) => {
      throw listenRefused(e, config);
    });
    const address = http.server.address();
    url = typeof address === "object" && address ? `http://${address.address}:${address.port}` : `http://${config.http.host}:${config.http.port}`;
    // Asked for (`on`) but not possible (no built worker, shadow mode): said louder than a choice of `auto`'s.
    if (config.mysql.url !== undefined) logger[config.http.ingressThread === "on" ? "warn" : "info"]("http ingress on the main thread", { why: plan.file ? "" : plan.why });
  }
  const tell = () => thread?.setState({ accepting: live !== undefined, role: state.role });
  let closing: Promise<void> | undefined;
  return {
    url,
    setReadiness: (next) => {
      state = next;
      metrics.setLeader(next.role === "running");
      tell();
    },
    readiness: () => state,
    attach: (ctx) => {
      live = ctx;
      late.attach(ctx);
      tell();
    },
    detach: () => {
      live = undefined;
      late.detach();
      tell();
    },
    // The thread first: it answers what it has in flight, handing requests to `http` meanwhile.
    close: () => (closing ??= (async () => {
      await thread?.close();
      await http.close();
    })()),
    ingressThread: thread,
  };
}

/**
 * A listener the address refuses is a configuration error (exit 2) that says which setting to
 * change: a port in use or not allowed names `--http-port`, an address this host lacks `--http-host`.
 */
function listenRefused(e: unknown, config: MsgxConfig): unknown {
  const text = `${(e as NodeJS.ErrnoException | undefined)?.code ?? ""} ${errorMessage(e)}`;
  const at = `${config.http.host}:${config.http.port}`;
  if (text.includes("EADDRINUSE")) {
    return new MsgxError("CONFIG", `port ${config.http.port} is in use (${at}; another msgx runner?): choose another with --http-port <port> or MSGX_HTTP_PORT (0 = any free port), or stop what listens there`, { cause: e });
  }
  if (text.includes("EACCES")) {
    return new MsgxError("CONFIG", `port ${config.http.port} needs privileges this process lacks (${at}): choose one above 1023 with --http-port <port> or MSGX_HTTP_PORT`, { cause: e });
  }
  if (text.includes("EADDRNOTAVAIL") || text.includes("ENOTFOUND")) {
    return new MsgxError("CONFIG", `${config.http.host} is not an address of this host (${at}): choose another with --http-host <host> or MSGX_HTTP_HOST (127.0.0.1 for loopback only)`, { cause: e });
  }
  return e;
}
