import { DEFAULT_LINEAGE_LIMIT, FLID_PATTERN, MAX_LINEAGE_LIMIT, type LineagePage, type LineageQuery, type LineageReader } from "@msgx/core";
import { z } from "zod";
import { HttpError } from "./http-error.js";
import type { HttpApp } from "./http-app.js";
import { decimal, routeName } from "./zod-validation.js";

/** `?limit=&before=` of every lineage route: 1–500 (default 50), `before` a version. */
export const pageQuery = z.object({ limit: decimal(1, MAX_LINEAGE_LIMIT).default(DEFAULT_LINEAGE_LIMIT), before: decimal(1).optional() });

/**
 * Lineage (docs/lineage.md), newest version first, `next` the `before` of the next page:
 * - `GET /admin/flights/<FLID>/lineage?limit=&before=` → `{flid, versions, next}`;
 * - `GET /admin/reference/<RTYPE>/<RKEY>/lineage?limit=&before=` → `{rtype, rkey, versions, next}`.
 * 404 when the key has no stored version at all; a page past the oldest one (`before` given) is
 * an empty list. A FLID that is not a decimal id, or a bad `limit` (1–500) or `before`, is 400.
 */
export function registerLineageRoutes(app: HttpApp, lineage: LineageReader): void {
  app.get(
    "/admin/flights/:flid/lineage",
    { schema: { params: z.object({ flid: z.string().regex(FLID_PATTERN, "a FLID is a decimal id") }), querystring: pageQuery } },
    async (request, reply) => {
      const { flid } = request.params;
      const page = await read(() => lineage.flightLineage(flid, lineageQuery(request.query)));
      if (absent(page, request.query)) return reply.code(404).send({ error: "not found", message: `no version of flight ${flid} is stored` });
      return { flid, ...page };
    },
  );

  app.get(
    "/admin/reference/:rtype/:rkey/lineage",
    { schema: { params: z.object({ rtype: routeName(64).regex(/^[^:]+$/, "a reference type has no colon"), rkey: routeName() }), querystring: pageQuery } },
    async (request, reply) => {
      const { rtype, rkey } = request.params;
      const page = await read(() => lineage.referenceLineage(rtype, rkey, lineageQuery(request.query)));
      if (absent(page, request.query)) return reply.code(404).send({ error: "not found", message: `no version of reference ${rtype}/${rkey} is stored` });
      return { rtype, rkey, ...page };
    },
  );
}

export const lineageQuery = (q: { limit: number; before?: number | undefined }): LineageQuery => ({ limit: q.limit, ...(q.before !== undefined ? { beforeVersion: q.before } : {}) });

const absent = (page: LineagePage, q: { before?: number | undefined }): boolean => page.versions.length === 0 && q.before === undefined;

/** The reader's RangeError is the caller's mistake (the schemas above should have caught it first). */
async function read(fn: () => Promise<LineagePage>): Promise<LineagePage> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof RangeError) throw new HttpError(400, e.message);
    throw e;
  }
}
