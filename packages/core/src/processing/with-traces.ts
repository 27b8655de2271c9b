import type { TraceSpan } from "../runtime/tracer.js";
import type { RunDecision } from "./run-decision.js";

/**
 * Every event of a message carries the trace of the span that processed it: the one place an
 * event gets its `traceparent`, so no processor deals with tracing.
 */
export function withTraces(decision: RunDecision, spans: ReadonlyMap<number, TraceSpan>): RunDecision {
  if (decision.events.every((e) => (spans.get(e.sourceMsgId)?.traceparent ?? null) === null)) return decision;
  const events = decision.events.map((e) => {
    const traceparent = spans.get(e.sourceMsgId)?.traceparent ?? null;
    return traceparent === null || e.traceparent ? e : { ...e, traceparent };
  });
  return { ...decision, events };
}
