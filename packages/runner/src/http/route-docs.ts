import type { RouteOptions } from "fastify";
import type { HttpApp } from "./http-app.js";

/**
 * What a route's zod schemas cannot say about it, for the OpenAPI document (`GET /openapi.json`):
 * its guard, the refusals its services answer, and its media types when they are not JSON. A scope
 * says it once for all its routes ({@link documentScope}); a route may add to it in `config.openapi`.
 */
export interface RouteDoc {
  /** The route is behind a bearer token (`bearerGuard`). */
  readonly bearer?: boolean;
  /** Statuses of the refusals its services answer beyond the ones every route has (`{ error, message, code? }`). */
  readonly errors?: readonly number[];
  /** Request media types when the body is not JSON (the body is then text of those types). */
  readonly consumes?: readonly string[];
  /** The success answer's media types when it is not JSON. */
  readonly produces?: readonly string[];
}

declare module "fastify" {
  interface FastifyContextConfig {
    /** What the OpenAPI document says of the route beyond its schemas. */
    openapi?: RouteDoc;
  }
}

/** A route as fastify registered it: what the document is built from. */
export interface DocumentedRoute {
  readonly method: string;
  readonly url: string;
  readonly schema: RouteOptions["schema"];
  readonly doc: RouteDoc;
}

/** The routes of an app and its scopes, as fastify registers them. */
export interface RouteCatalog {
  /** Every route registered so far (complete once the app is ready), in registration order. */
  routes(): readonly DocumentedRoute[];
}

const docOf = (opts: RouteOptions): RouteDoc => opts.config?.openapi ?? {};

/**
 * Collects every route registered on `app` and the scopes registered after this call (an `onRoute`
 * hook: fastify runs it for each route, the HEAD twin of a GET included). A route's doc is read
 * when `routes()` is called, so a scope's {@link documentScope} hook, which runs after this one,
 * is seen.
 */
export function catalogRoutes(app: HttpApp): RouteCatalog {
  const seen: RouteOptions[] = [];
  app.addHook("onRoute", (opts) => void seen.push(opts as RouteOptions));
  return {
    routes: () =>
      seen.flatMap((opts) =>
        (Array.isArray(opts.method) ? opts.method : [opts.method]).map((method) => ({ method: String(method).toUpperCase(), url: opts.url, schema: opts.schema, doc: docOf(opts) })),
      ),
  };
}

/** Adds `doc` to every route registered on `scope` after this call (merged with a route's own `config.openapi`). */
export function documentScope(scope: HttpApp, doc: RouteDoc): void {
  scope.addHook("onRoute", (opts) => {
    const own = docOf(opts as RouteOptions);
    const errors = [...new Set([...(doc.errors ?? []), ...(own.errors ?? [])])];
    opts.config = { ...opts.config, openapi: { ...doc, ...own, ...(errors.length > 0 ? { errors } : {}) } };
  });
}
