import { z } from "zod";
import { errorReason } from "./http-error.js";
import type { DocumentedRoute } from "./route-docs.js";

/** Where the runner serves its OpenAPI document. */
export const OPENAPI_PATH = "/openapi.json";

type JsonSchema = Record<string, unknown>;
type Operation = Record<string, unknown> & { readonly responses: Record<string, unknown> };

/** The body of every error answer (`ErrorBody`); some refusals add fields (a replay conflict's `mismatches`). */
const errorBodySchema = z
  .object({
    error: z.string().describe("the status's reason phrase, in lower case"),
    message: z.string().describe("what was refused and why"),
    code: z.string().optional().describe("the refusal's code where a client may act on it (ALREADY_EXISTS, UNKNOWN_QUEUE, …)"),
  })
  .loose();

/** Statuses every route may answer: our fault, or a dependency (the database) away. */
const ALWAYS = [500, 503];
/** Statuses of a route that reads a body: too large, another media type or charset, not parseable. */
const BODY_ERRORS = [400, 413, 415];

/**
 * The OpenAPI 3.1 document of `routes`, built from the zod schemas fastify validates each route
 * with, read as their input (what a client sends: `?limit=10` is a text the route turns into a
 * number): path and query parameters, the JSON body as a named schema, the bearer guard and the
 * error answers. Success answers are described by media type only: the routes have no response
 * schemas to build them from.
 */
export function openApiDocument(routes: readonly DocumentedRoute[], version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, Operation>> = {};
  const schemas: Record<string, JsonSchema> = { ErrorBody: jsonSchema(errorBodySchema) };
  const errors = new Set<number>();
  const gets = new Set(routes.filter((r) => r.method === "GET").map((r) => r.url));
  for (const route of routes) {
    // fastify adds a HEAD twin to every GET: the same answer without a body.
    if (route.method === "HEAD" && gets.has(route.url)) continue;
    const path = openApiPath(route.url);
    const id = operationId(route.method, route.url);
    const body = zodPart(route.schema, "body");
    if (body) schemas[`${pascal(id)}Body`] = jsonSchema(body);
    const op = operation(route, id, body);
    for (const status of Object.keys(op.responses)) if (status !== "200") errors.add(Number(status));
    (paths[path] ??= {})[route.method.toLowerCase()] = op;
  }
  const responses = Object.fromEntries([...errors].sort().map((status) => [`Error${status}`, { description: errorReason(status), content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorBody" } } } }]));
  return {
    openapi: "3.1.0",
    info: {
      title: "msgx runner",
      version,
      description: "Every HTTP route of this `msgx run`: ingress, probes, metrics, admin, the console, and (when enabled) the reliable-message service `/rm/v1` and the task service `/task/v1`. Built from the schemas the routes validate with (docs/http-api.md).",
    },
    paths,
    components: { schemas, responses, securitySchemes: { bearerAuth: { type: "http", scheme: "bearer", description: "the scope's token (http.token, reliable.token or tasks.token); with none configured every request passes" } } },
  };
}

function operation(route: DocumentedRoute, id: string, body: z.ZodType | undefined): Operation {
  const params = [...parameters(zodPart(route.schema, "params"), "path"), ...parameters(zodPart(route.schema, "querystring"), "query")];
  const takesBody = body !== undefined || route.doc.consumes !== undefined;
  const statuses = new Set([...(params.length > 0 ? [400] : []), ...(takesBody ? BODY_ERRORS : []), ...(route.doc.bearer ? [401] : []), ...(/:\w/.test(route.url) ? [404] : []), ...(route.doc.errors ?? []), ...ALWAYS]);
  const produces = route.doc.produces ?? ["application/json"];
  const content = Object.fromEntries(produces.map((t) => [t, { schema: t === "application/json" ? {} : { type: "string" } }]));
  const responses: Record<string, unknown> = { "200": { description: "the answer", content } };
  for (const status of [...statuses].sort()) responses[String(status)] = { $ref: `#/components/responses/Error${status}` };
  return {
    operationId: id,
    tags: [tagOf(route.url)],
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(body ? { requestBody: { required: !body.safeParse(undefined).success, content: { "application/json": { schema: { $ref: `#/components/schemas/${pascal(id)}Body` } } } } } : {}),
    ...(!body && route.doc.consumes ? { requestBody: { required: true, content: Object.fromEntries(route.doc.consumes.map((t) => [t, { schema: { type: "string" } }])) } } : {}),
    responses,
    ...(route.doc.bearer ? { security: [{ bearerAuth: [] }] } : {}),
  };
}

/** One parameter per property of an object schema (`params` or `querystring`). */
function parameters(schema: z.ZodType | undefined, where: "path" | "query"): Record<string, unknown>[] {
  if (!schema) return [];
  const json = jsonSchema(schema);
  const required = new Set((json["required"] as string[] | undefined) ?? []);
  return Object.entries((json["properties"] as Record<string, JsonSchema> | undefined) ?? {})
    .filter(([, s]) => !isNever(s))
    .map(([name, s]) => ({ name, in: where, required: where === "path" || required.has(name), schema: s }));
}

/** A schema nothing matches: a parameter a client may not send is not one to document. */
const isNever = (s: JsonSchema): boolean => typeof s["not"] === "object" && s["not"] !== null && Object.keys(s["not"]).length === 0;

function zodPart(schema: DocumentedRoute["schema"], part: "params" | "querystring" | "body"): z.ZodType | undefined {
  const s = (schema as Record<string, unknown> | undefined)?.[part];
  return s instanceof z.ZodType ? s : undefined;
}

/** JSON Schema 2020-12 (OpenAPI 3.1's dialect) of what a client sends; a refinement (`routeText`'s characters) is said in words only. */
function jsonSchema(schema: z.ZodType): JsonSchema {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, {
    target: "draft-2020-12",
    io: "input",
    unrepresentable: "any",
    // A field that must be absent (`z.undefined()`, a refused `page`) accepts nothing.
    override: (ctx) => void (ctx.zodSchema._zod.def.type === "undefined" && Object.assign(ctx.jsonSchema, { not: {} })),
  }) as JsonSchema;
  return json;
}

/** `/rm/v1/messages/:id` → `/rm/v1/messages/{id}`; a wildcard is one `{path}` parameter. */
function openApiPath(url: string): string {
  return url.replace(/:(\w+)/g, "{$1}").replace(/\*$/, "{path}");
}

/** `POST /rm/v1/messages/:id/confirm` → `postRmV1MessagesByIdConfirm`: unique per method and path. */
function operationId(method: string, url: string): string {
  const words = url
    .split("/")
    .slice(1)
    .map((seg, i, all) => (seg === "" ? (i === all.length - 1 && all.length > 1 ? "Index" : "Root") : seg.startsWith(":") ? `By${pascal(seg.slice(1))}` : pascal(seg)));
  return method.toLowerCase() + words.join("");
}

function pascal(text: string): string {
  return text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join("");
}

/** Paths of one segment that are the runner's own, not a service's. */
const SERVICE_PATHS = new Set(["", "healthz", "readyz", "metrics", OPENAPI_PATH.slice(1)]);

/** One tag per service (`rm`, `task`, `admin`, …): the generated clients make a class of each; the probes, `/` and this document are `service`. */
function tagOf(url: string): string {
  const first = url.split("/")[1] ?? "";
  return SERVICE_PATHS.has(first) ? "service" : first;
}
