import type { HttpApp } from "./http-app.js";
import { bodyText } from "./body-text.js";
import { HttpError } from "./http-error.js";

/**
 * Makes every body of `scope` JSON of any declared type, read as UTF-8 (`bodyText`: 415/400 for
 * another charset or bad bytes), at most `limit` bytes (413); an empty body is `{}`, anything that
 * is not JSON a 400.
 */
export function acceptJsonBodies(scope: HttpApp, limit: number): void {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: limit }, (request, body, done) => {
    try {
      const text = bodyText(body as Buffer, request.headers["content-type"]);
      done(null, text.trim() === "" ? {} : JSON.parse(text));
    } catch (e) {
      done(e instanceof SyntaxError ? new HttpError(400, `body is not JSON: ${e.message}`) : (e as Error));
    }
  });
}
