import { ROOT_CONTEXT, SpanStatusCode, trace, TraceFlags, type Tracer as OtelApiTracer } from "@opentelemetry/api";
import { formatTraceparent, parseTraceparent, type SpanOptions, type TraceSpan, type Tracer } from "@msgx/core";

/**
 * The core's `Tracer` over `@opentelemetry/api`: spans go to whatever tracer provider is registered
 * globally — none unless `startTracing` (or a test) registered one, and then the API's no-op passes
 * the parent's context on, which is what `Tracer` asks of a tracer that records nothing. Parents
 * are passed explicitly (no context manager): a step serves many messages, each in its own trace.
 */
export function otelTracer(tracer: OtelApiTracer = trace.getTracer("msgx")): Tracer {
  return {
    startSpan(name: string, options: SpanOptions = {}): TraceSpan {
      const parent = parseTraceparent(options.parent);
      const context = parent === null ? ROOT_CONTEXT : trace.setSpanContext(ROOT_CONTEXT, { traceId: parent.traceId, spanId: parent.spanId, traceFlags: parseInt(parent.flags, 16) & TraceFlags.SAMPLED, isRemote: true });
      const span = tracer.startSpan(name, options.attributes ? { attributes: { ...options.attributes } } : {}, context);
      const c = span.spanContext();
      const valid = trace.isSpanContextValid(c);
      const flags = (c.traceFlags & TraceFlags.SAMPLED).toString(16).padStart(2, "0");
      let ended = false;
      return {
        traceparent: valid ? formatTraceparent({ traceId: c.traceId, spanId: c.spanId, flags }) : null,
        end(attributes, error) {
          if (ended) return;
          ended = true;
          if (attributes) span.setAttributes({ ...attributes });
          if (error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: error });
          span.end();
        },
      };
    },
  };
}
