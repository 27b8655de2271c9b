import type { Readiness } from "../app/readiness.js";
import type { ServiceMetrics } from "../app/service-metrics.js";
import type { HttpContext } from "./http-context.js";
import { HttpError, notRunning } from "./http-error.js";

/** What the HTTP server needs before the pipeline runs: the probes' answers and the listener settings. */
export interface EarlyContext {
  readonly logger: HttpContext["logger"];
  readonly token: string | undefined;
  readonly maxBodyBytes: number;
  /** `/rm/v1` is served (`reliable.enabled`), behind this token. */
  readonly rm?: { readonly token: string | undefined };
  /** `/task/v1` is served (`tasks.enabled`), behind this token. */
  readonly tasks?: { readonly token: string | undefined };
  readonly readiness: () => Readiness;
  readonly metrics: ServiceMetrics;
}

/**
 * An `HttpContext` the server can be built on before the pipeline exists: `/healthz`, `/readyz`
 * and `/metrics` answer at once; every other route answers 503 (with retry-after) until `attach`
 * hands over the running pipeline's context, and again after `detach`.
 */
export function lateContext(early: EarlyContext): { readonly ctx: HttpContext; attach(live: HttpContext): void; detach(): void } {
  let live: HttpContext | undefined;
  const current = (): HttpContext => {
    if (live) return live;
    throw notRunning(early.readiness().role);
  };
  /** Forwards each method call to the live context's member `key`, resolved at call time. */
  const forward = <K extends "reliable" | "requests" | "rm" | "tasks" | "ops" | "compare">(key: K) =>
    new Proxy({} as NonNullable<HttpContext[K]>, {
      get: (_target, name) => (...args: unknown[]) => {
        const member = current()[key] as Record<PropertyKey, (...a: unknown[]) => unknown> | undefined;
        if (!member) throw new HttpError(404, `no ${key} on this runner`);
        return member[name]!(...args);
      },
    });
  const ctx: HttpContext = {
    logger: early.logger,
    token: early.token,
    maxBodyBytes: early.maxBodyBytes,
    get checks() {
      return live?.checks ?? [];
    },
    readiness: early.readiness,
    observeRequest: (method, route, status, seconds) => early.metrics.observeRequest(method, route, status, seconds),
    metrics: async () => {
      const own = await early.metrics.render();
      if (!live) return own;
      const pipeline = await live.metrics();
      return { contentType: own.contentType, body: `${own.body}\n${pipeline.body}` };
    },
    receive: (raw, options) => current().receive(raw, options),
    status: () => current().status(),
    message: (id) => current().message(id),
    flight: (flid) => current().flight(flid),
    flights: (q) => current().flights(q),
    deadLetters: (q) => current().deadLetters(q),
    deadLetterGroups: (idsPerGroup) => current().deadLetterGroups(idsPerGroup),
    snapshotLog: (limit) => current().snapshotLog(limit),
    replayPreview: (sel) => current().replayPreview(sel),
    replay: (sel, operator, options) => current().replay(sel, operator, options),
    rawMessage: (msgId) => current().rawMessage(msgId),
    audits: (q) => current().audits(q),
    lineage: {
      flightLineage: (flid, q) => current().lineage.flightLineage(flid, q),
      referenceLineage: (rtype, rkey, q) => current().lineage.referenceLineage(rtype, rkey, q),
    },
    reliable: forward("reliable"),
    requests: forward("requests"),
    ops: forward("ops"),
    compare: forward("compare"),
    ...(early.rm ? { rm: forward("rm"), rmToken: early.rm.token } : {}),
    ...(early.tasks ? { tasks: forward("tasks"), tasksToken: early.tasks.token } : {}),
  };
  return {
    ctx,
    attach: (next) => void (live = next),
    detach: () => void (live = undefined),
  };
}
