import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyRequest } from "fastify";
import type { HttpApp } from "./http-app.js";
import { HttpError } from "./http-error.js";
import { documentScope } from "./route-docs.js";

const digest = (text: string) => createHash("sha256").update(text, "utf8").digest();

/**
 * An `onRequest` hook that refuses (401) a request without `Authorization: Bearer <token>`; with
 * no token configured every request passes. The comparison is over equal-length SHA-256 digests
 * with `timingSafeEqual`, so its time says nothing about how much of a guess was right, nor the
 * token's length. It runs before the body is read: an unauthorised upload is never buffered.
 */
export function bearerGuard(token: string | undefined): (request: FastifyRequest) => Promise<void> {
  const expected = token === undefined ? undefined : digest(`Bearer ${token}`);
  return async (request) => {
    if (expected === undefined) return;
    const given = request.headers.authorization;
    if (typeof given !== "string" || !timingSafeEqual(digest(given), expected)) throw new HttpError(401, "missing or wrong bearer token");
  };
}

/**
 * Guards every route of `scope` registered after this call with {@link bearerGuard}, and says so in
 * the OpenAPI document.
 */
export function requireBearer(scope: HttpApp, token: string | undefined): void {
  scope.addHook("onRequest", bearerGuard(token));
  documentScope(scope, { bearer: true });
}
