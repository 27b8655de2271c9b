import { isMsgxError, isRequestInputError, RequestStatus } from "@msgx/core";
import { z } from "zod";
import type { RequestAdmin } from "./http-context.js";
import { HttpError } from "./http-error.js";
import type { HttpApp } from "./http-app.js";
import { decimal, decimalId, routeName } from "./zod-validation.js";

const given = (name: string) => z.string({ error: `give ${name}` }).min(1, `give ${name}`);
const operator = z.string().optional();

/**
 * `/admin/requests` (ask upstream, list, show) and `/admin/reference` (REF_MASTER), docs/requests.md:
 * - `POST /admin/requests/schedule` `{from, to, operator?}` and `POST /admin/requests/ref` `{rtype, operator?}`
 *   register a request and send it at once; the answer is the request as it then stands.
 * - `GET /admin/requests?status=&type=&before=&limit=` newest first; `GET /admin/requests/<id>`.
 * - `GET /admin/reference` (types), `GET /admin/reference/<RTYPE>?after=&limit=&deleted=1`, `GET /admin/reference/<RTYPE>/<RKEY>`.
 * A request the upstream format cannot carry is 400; one the configuration does not allow, 409.
 */
export function registerRequestRoutes(app: HttpApp, api: RequestAdmin): void {
  app.post("/admin/requests/schedule", { schema: { body: z.object({ from: given("from"), to: given("to"), operator }) } }, async (request) =>
    call(() => api.schedule(request.body.from, request.body.to, request.body.operator || "admin-http")),
  );
  app.post("/admin/requests/ref", { schema: { body: z.object({ rtype: given("rtype"), operator }) } }, async (request) =>
    call(() => api.reference(request.body.rtype, request.body.operator || "admin-http")),
  );
  app.get(
    "/admin/requests",
    {
      schema: {
        querystring: z.object({
          status: z.enum(RequestStatus).optional(),
          type: routeName(64).optional(),
          before: decimalId.optional(),
          limit: decimal(1, 1000).default(50),
        }),
      },
    },
    async (request) => {
      const { status, type, before, limit } = request.query;
      return call(() => api.list({ limit, ...(status ? { statuses: [status] } : {}), ...(type ? { requestType: type } : {}), ...(before ? { beforeId: before } : {}) }));
    },
  );
  app.get("/admin/requests/:requestId", { schema: { params: z.object({ requestId: routeName(64) }) } }, async (request, reply) => {
    const r = await call(() => api.get(request.params.requestId));
    return r ?? reply.code(404).send({ error: "not found", message: "no such request" });
  });
  app.get("/admin/reference", async () => call(() => api.referenceTypes()));
  app.get(
    "/admin/reference/:rtype",
    {
      schema: {
        params: z.object({ rtype: routeName(64) }),
        querystring: z.object({ after: routeName().optional(), limit: decimal(1, 1000).default(100), deleted: z.enum(["0", "1"]).optional() }),
      },
    },
    async (request) => {
      const { after, limit, deleted } = request.query;
      const entries = await call(() => api.referenceList({ rtype: request.params.rtype, limit, ...(after !== undefined ? { afterKey: after } : {}), includeDeleted: deleted === "1" }));
      return { entries, next: entries.length === limit ? entries.at(-1)!.rkey : null };
    },
  );
  app.get("/admin/reference/:rtype/:rkey", { schema: { params: z.object({ rtype: routeName(64), rkey: routeName() }) } }, async (request, reply) => {
    const e = await call(() => api.referenceGet(request.params.rtype, request.params.rkey));
    return e ?? reply.code(404).send({ error: "not found", message: "no such reference row" });
  });
}

async function call<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    if (isRequestInputError(e)) throw new HttpError(400, e.message);
    if (isMsgxError(e) && e.kind === "CONFIG") throw new HttpError(409, e.message);
    throw e;
  }
}
