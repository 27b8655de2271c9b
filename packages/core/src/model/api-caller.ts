/**
 * Who made an HTTP call that changed a reliable message or a task, as the runner knows it: the
 * route, the request's id (fastify's, in the access log beside it), the peer's address and its
 * User-Agent. msgx has no user accounts (a bearer token per surface), so this is what names a
 * caller; an operator command may add the operator name it was given (`?operator=`).
 */
export interface ApiCaller {
  /** Method and route pattern: `POST /rm/v1/messages/:id/confirm`. */
  readonly route: string;
  readonly requestId: string;
  readonly remoteAddress: string;
  /** The User-Agent header, cut to 200 characters; null when absent. */
  readonly userAgent: string | null;
  /** The operator name an admin command was given, when it takes one. */
  readonly operator?: string | null;
}
