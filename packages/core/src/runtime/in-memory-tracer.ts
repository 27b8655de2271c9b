import { formatTraceparent, parseTraceparent } from "./traceparent.js";
import type { SpanAttributes, SpanOptions, TraceSpan, Tracer } from "./tracer.js";

/** A span as `InMemoryTracer` keeps it. */
export interface RecordedSpan {
  readonly name: string;
  readonly traceId: string;
  readonly spanId: string;
  /** The parent's span id, or null for a root span. */
  readonly parentSpanId: string | null;
  attributes: SpanAttributes;
  ended: boolean;
  error: string | null;
}

/**
 * The `Tracer` fake: every span recorded in start order, ids from a counter (deterministic,
 * no randomness, no clock), sampled.
 */
export class InMemoryTracer implements Tracer {
  readonly spans: RecordedSpan[] = [];
  #next = 1;

  startSpan(name: string, options: SpanOptions = {}): TraceSpan {
    const parent = parseTraceparent(options.parent);
    const n = this.#next++;
    const span: RecordedSpan = {
      name,
      traceId: parent?.traceId ?? n.toString(16).padStart(32, "0"),
      spanId: n.toString(16).padStart(16, "0"),
      parentSpanId: parent?.spanId ?? null,
      attributes: { ...options.attributes },
      ended: false,
      error: null,
    };
    this.spans.push(span);
    return {
      traceparent: formatTraceparent({ traceId: span.traceId, spanId: span.spanId, flags: "01" }),
      end(attributes, error) {
        if (span.ended) return;
        span.ended = true;
        span.attributes = { ...span.attributes, ...attributes };
        if (error !== undefined) span.error = error;
      },
    };
  }

  /** The recorded spans named `name`. */
  named(name: string): RecordedSpan[] {
    return this.spans.filter((s) => s.name === name);
  }
}
