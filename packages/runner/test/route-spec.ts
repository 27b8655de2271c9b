import type { Logger } from "@msgx/core";
import type { HttpApp } from "../src/http/http-app.js";
import type { HttpContext } from "../src/http/http-context.js";

const unused = () => {
  throw new Error("not used by these routes");
};

/**
 * The members of an `HttpContext` a hosted service's route spec does not use (the pipeline's
 * reads, ingress, replay): each throws if called. Spread it under the members the spec does use.
 */
export function pipelineLessContext(logger: Logger, adminToken: string) {
  return {
    logger,
    token: adminToken,
    maxBodyBytes: 64 * 1024,
    checks: [],
    receive: unused,
    status: unused,
    message: unused,
    flight: unused,
    flights: unused,
    lineage: { flightLineage: unused, referenceLineage: unused },
    deadLetters: unused,
    deadLetterGroups: unused,
    snapshotLog: unused,
    replayPreview: unused,
    replay: unused,
    rawMessage: unused,
    audits: unused,
  } satisfies Omit<HttpContext, "metrics" | "reliable">;
}

/** One call through fastify's inject: JSON in (a string is sent as is) and out (undefined for an empty body). */
export async function injectJson(app: HttpApp, method: "GET" | "POST" | "DELETE", url: string, body: unknown, headers: Record<string, string>) {
  const res = await app.inject({ method, url, headers: { ...headers, ...(body !== undefined ? { "content-type": "application/json" } : {}) }, ...(body !== undefined ? { payload: typeof body === "string" ? body : JSON.stringify(body) } : {}) });
  return { status: res.statusCode, body: res.body === "" ? undefined : (JSON.parse(res.body) as Record<string, any>) };
}
