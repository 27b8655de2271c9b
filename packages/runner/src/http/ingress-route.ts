import { isMsgxError } from "@msgx/core";
import { bodyText } from "./body-text.js";
import { requireBearer } from "./bearer-token.js";
import type { HttpContext } from "./http-context.js";
import { HttpError } from "./http-error.js";
import type { HttpApp } from "./http-app.js";
import { documentScope } from "./route-docs.js";

/** What the ingress route needs: the token, the body cap and where a message goes. */
export type IngressContext = Pick<HttpContext, "token" | "maxBodyBytes" | "receive">;

/** The ingress route's path: the ingress thread serves it, and hands everything else over. */
export const INGRESS_PATH = "/cminmsgs/send";

const XML_TYPES = ["application/xml", "text/xml", "text/plain"];

/**
 * `POST /cminmsgs/send`: the raw XML into the mailbox, answered with its mailbox id. The token is
 * checked before the body is read; the body is read as a stream and refused (413) as soon as it
 * passes `http.maxBodyBytes` (or when its declared length does); then `bodyText` reads it as
 * UTF-8 exactly as sent (415/400 otherwise); an empty body or one holding a NUL character is 400.
 */
export function registerIngressRoute(app: HttpApp, ctx: IngressContext): void {
  requireBearer(app, ctx.token);
  documentScope(app, { consumes: XML_TYPES, produces: ["text/plain"] });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(XML_TYPES, { parseAs: "buffer", bodyLimit: ctx.maxBodyBytes }, (_request, body, done) => done(null, body));
  app.addContentTypeParser("*", (request, _payload, done) => done(unsupported(request.headers["content-type"])));
  app.post(INGRESS_PATH, async (request, reply) => {
    if (!Buffer.isBuffer(request.body)) throw unsupported(request.headers["content-type"]);
    const raw = bodyText(request.body, request.headers["content-type"]);
    if (raw.trim() === "") throw new HttpError(400, "empty body");
    // XML 1.0 has no NUL character, and the embedded mailbox (PostgreSQL) cannot store one: refused
    // here for every mailbox alike rather than stored to end DEAD, or failing in the store as a 500.
    const nul = raw.indexOf("\0");
    if (nul >= 0) throw new HttpError(400, `body holds a NUL character at offset ${nul}: no XML document can hold one`);
    // A repeated header arrives joined with commas: invalid, so ignored (W3C Trace Context).
    const traceparent = request.headers.traceparent;
    const id = await ctx.receive(raw, typeof traceparent === "string" ? { traceparent } : {}).catch((e: unknown) => {
      throw misconfiguredMailbox(e);
    });
    return reply.type("text/plain; charset=utf-8").send(String(id));
  });
}

/**
 * A mailbox the configuration gets wrong (a missing table, a missing grant: CONFIG at the adapter
 * boundary) is not the sender's fault and not a crash: 503 with what the operator must fix, which
 * the sender may retry once fixed. It is a refusal we chose, so not logged per request; the
 * runner says it at start and the intake's log says it again.
 */
function misconfiguredMailbox(e: unknown): unknown {
  if (!isMsgxError(e) || e.kind !== "CONFIG") return e;
  return new HttpError(503, `the mailbox cannot take messages until an operator fixes it: ${e.message}`, "MAILBOX_MISCONFIGURED");
}

function unsupported(contentType: string | undefined): HttpError {
  const type = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  return new HttpError(415, `content type must be application/xml, text/xml or text/plain, not '${type || "none"}'`);
}
