/** Span attributes: OpenTelemetry's primitive attribute values. */
export type SpanAttributes = Readonly<Record<string, string | number | boolean>>;

export interface SpanOptions {
  /** The W3C `traceparent` this span is a child of; absent or null: the span starts a new trace. */
  readonly parent?: string | null;
  readonly attributes?: SpanAttributes;
}

/** A started span. */
export interface TraceSpan {
  /**
   * This span's W3C `traceparent`, to store with what it caused or send on to the broker; null
   * when nothing traces and there was no parent. A tracer that records nothing passes the parent on.
   */
  readonly traceparent: string | null;
  /** Ends the span, adding `attributes`; with `error`, marks it failed with that message. Idempotent. */
  end(attributes?: SpanAttributes, error?: string): void;
}

/**
 * Where the pipeline reports its spans (intake, pump, delivery): the core's view of OpenTelemetry,
 * so the core stays free of the SDK. The runner implements it with `@opentelemetry/api`; tests use
 * `InMemoryTracer`.
 *
 * Every implementation guarantees:
 * - `startSpan` never throws and never blocks (a broken exporter must not stop the pump);
 * - a span started with a valid `parent` belongs to the parent's trace;
 * - when it records nothing, the returned `traceparent` is the parent's (or null), so a trace
 *   taken at the ingress still reaches the Kafka record with export off.
 */
export interface Tracer {
  startSpan(name: string, options?: SpanOptions): TraceSpan;
}

/** Records nothing and passes the parent on: the default where no tracer is given. */
export const noopTracer: Tracer = {
  startSpan: (_name, options) => ({ traceparent: options?.parent ?? null, end() {} }),
};

/** The span names msgx reports, one per stage of a message's way to the broker. */
export const SpanName = {
  INGRESS: "msgx.ingress",
  INTAKE: "msgx.intake",
  PROCESS: "msgx.process",
  DELIVER: "msgx.deliver",
} as const;
