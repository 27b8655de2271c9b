import type { HttpApp } from "./http-app.js";
import { bodyText } from "./body-text.js";
import { HttpError } from "./http-error.js";

/**
 * Refuses a NUL character (`\u0000`) in any key or string of a body: PostgreSQL stores no text or
 * jsonb holding one, so it would otherwise reach a store and fail there as a 500. Other control
 * characters are text a body may carry (a pretty-printed JSON message has newlines).
 */
function withoutNul(key: string, value: unknown): unknown {
  if (key.includes("\0") || (typeof value === "string" && value.includes("\0"))) {
    throw new HttpError(400, `body ${key === "" ? "" : `field "${key}" `}holds a NUL character (\\u0000), which no stored text can hold`);
  }
  return value;
}

/**
 * Makes every body of `scope` JSON of any declared type, read as UTF-8 (`bodyText`: 415/400 for
 * another charset or bad bytes), at most `limit` bytes (413); an empty body is `{}`, anything that
 * is not JSON a 400, and so is a NUL character anywhere in it.
 */
export function acceptJsonBodies(scope: HttpApp, limit: number): void {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: limit }, (request, body, done) => {
    try {
      const text = bodyText(body as Buffer, request.headers["content-type"]);
      done(null, text.trim() === "" ? {} : JSON.parse(text, withoutNul));
    } catch (e) {
      done(e instanceof SyntaxError ? new HttpError(400, `body is not JSON: ${e.message}`) : (e as Error));
    }
  });
}
