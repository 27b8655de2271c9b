import { CheckVerdict, normalizeCheckVerdict, type ReliableMessage, type ReliableMessageChecker } from "@msgx/reliable";
import { postJson, PostTimeoutError, type OutgoingCallOptions } from "../http/post-json.js";

/** How one call to a checker ended, for the `msgx_reliable_checkbacks_total{outcome}` counter. */
export type CheckerOutcome = "confirm" | "cancel" | "unknown" | "error" | "timeout";

/** `url`: the producer's check-back endpoint; an answer later than `timeoutMs` is inconclusive. */
export type HttpCheckerOptions = OutgoingCallOptions<CheckerOutcome>;

/** What the checker endpoint receives (docs/reliable-message.md "Check-back over HTTP"). */
export function checkRequestBody(message: ReliableMessage): Record<string, unknown> {
  return {
    messageId: message.messageId,
    queue: message.consumerQueue,
    dataType: message.dataType,
    body: message.body,
    headers: message.headers,
    field1: message.field1,
    field2: message.field2,
    field3: message.field3,
    checkCount: message.checkCount,
    createdAt: message.createdAt,
  };
}

/**
 * A check-back over HTTP: `POST <url>` with the message as JSON, answered `200` with
 * `{"verdict":"confirm"|"cancel"|"unknown"}`. Anything else — another status, a body that is not
 * such JSON, no answer within `timeoutMs`, a refused connection — throws, which the check-back
 * job counts as an inconclusive check (asked again with backoff): a failing or slow checker never
 * confirms, cancels or drops a message.
 */
export function httpChecker(options: HttpCheckerOptions): ReliableMessageChecker {
  const observe = options.observe ?? (() => undefined);
  return async (message, signal) => {
    try {
      const { status, text } = await postJson(options.url, checkRequestBody(message), { token: options.token, timeoutMs: options.timeoutMs, signal, fetch: options.fetch });
      if (status !== 200) throw new Error(`checker answered HTTP ${status}: ${text.slice(0, 200)}`);
      let verdict: unknown;
      try {
        verdict = (JSON.parse(text) as { verdict?: unknown } | null)?.verdict;
      } catch {
        throw new Error(`checker answered 200 with a body that is not JSON: ${text.slice(0, 200)}`);
      }
      // confirm, cancel, unknown (and the job's own names delete, later): the core's one list.
      const mapped = normalizeCheckVerdict(verdict);
      if (mapped === undefined) throw new Error(`checker answered verdict ${JSON.stringify(verdict)}: expected "confirm", "cancel" or "unknown"`);
      observe(mapped === CheckVerdict.CONFIRM ? "confirm" : mapped === CheckVerdict.DELETE ? "cancel" : "unknown");
      return mapped;
    } catch (e) {
      if (e instanceof PostTimeoutError) {
        observe("timeout");
        throw new Error(`checker did not answer within ${options.timeoutMs} ms`);
      }
      observe("error");
      throw e;
    }
  };
}
