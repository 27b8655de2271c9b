import { ignoreEntryProblem, isMsgxError } from "@msgx/core";
import { z } from "zod";
import type { CompareAdmin, HttpContext } from "./http-context.js";
import { HttpError } from "./http-error.js";
import type { HttpApp } from "./http-app.js";

const compareBody = z
  .object({
    /** One of `compare.against`; absent = the first. */
    against: z.string().min(1).optional(),
    operationDays: z.array(z.string().regex(/^\d{8}$/, "operationDays are yyyyMMdd")).max(31).default([]),
    ignore: z
      .array(z.string())
      .max(100)
      .default([])
      .refine((list) => list.every((i) => ignoreEntryProblem(i) === undefined), { message: "ignore: name a top-level key, fields.<NAME>, collections.<NAME> or collections.<NAME>.<VALUE>" }),
  })
  .strict()
  .prefault({});

/**
 * The console's comparison (docs/operations.md "Going live: shadow run and comparison"), behind
 * the admin token like every `/admin` route:
 * - `GET /admin/compare` → `{ against: [...] }`, the configured targets (default first);
 * - `POST /admin/compare` `{ against?, operationDays?, ignore? }` → the report of `msgx compare --json`.
 * The runner reads only a URL listed in `compare.against` (400 otherwise; 404 when none is set),
 * one comparison at a time (409 while one runs); the other side failing is 502.
 */
export function registerCompareRoutes(app: HttpApp, ctx: HttpContext): void {
  let running = false;
  const admin = (): CompareAdmin => {
    if (!ctx.compare || ctx.compare.targets().length === 0) throw new HttpError(404, "no comparison target is configured on this runner (compare.against)");
    return ctx.compare;
  };

  app.get("/admin/compare", async () => ({ against: ctx.compare?.targets() ?? [] }));

  app.post("/admin/compare", { schema: { body: compareBody } }, async (request) => {
    const compare = admin();
    const targets = compare.targets();
    const against = request.body.against ?? targets[0]!;
    if (!targets.includes(against)) throw new HttpError(400, `against must be one of compare.against: ${targets.join(", ")}`);
    if (running) throw new HttpError(409, "a comparison is running on this runner: try again when it has finished");
    running = true;
    try {
      return await compare.compare(against, { operationDays: request.body.operationDays, ignore: request.body.ignore });
    } catch (e) {
      if (isMsgxError(e) && e.kind === "DEPENDENCY_UNAVAILABLE") throw new HttpError(502, e.message);
      throw e;
    } finally {
      running = false;
    }
  });
}
