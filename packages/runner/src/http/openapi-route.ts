import type { HttpApp } from "./http-app.js";
import { OPENAPI_PATH, openApiDocument } from "./openapi-document.js";
import type { RouteCatalog } from "./route-docs.js";

/**
 * `GET /openapi.json`: the OpenAPI 3.1 document of every route this runner registered (docs/http-api.md),
 * open like the probes: it names routes and their schemas, no data. Built on the first request,
 * once every route is registered; the routes do not change while the app runs.
 */
export function registerOpenApiRoute(app: HttpApp, catalog: RouteCatalog, version: string): void {
  let document: Record<string, unknown> | undefined;
  app.get(OPENAPI_PATH, async (_request, reply) => reply.type("application/json; charset=utf-8").send((document ??= openApiDocument(catalog.routes(), version))));
}
