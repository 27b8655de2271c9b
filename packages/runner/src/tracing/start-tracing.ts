import { trace } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import type { Logger } from "@msgx/core";
import type { MsgxConfig } from "../config/config-schema.js";

/** Flushes and stops the span export; resolves (never rejects) once done. */
export type StopTracing = () => Promise<void>;

/**
 * Registers the OpenTelemetry SDK with a batching OTLP/HTTP exporter as the global tracer
 * provider when `tracing.enabled` is set, and does nothing otherwise (export is off by default: no
 * SDK, no network). An unreachable collector costs dropped spans, never a stopped pipeline.
 */
export function startTracing(config: MsgxConfig["tracing"], logger: Logger): StopTracing {
  if (!config.enabled) return async () => undefined;
  const exporter = new OTLPTraceExporter(config.endpoint ? { url: config.endpoint } : {});
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ "service.name": config.serviceName }),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  trace.setGlobalTracerProvider(provider);
  logger.info("tracing on: spans exported over OTLP/HTTP", { serviceName: config.serviceName, ...(config.endpoint ? { endpoint: config.endpoint } : {}) });
  return async () => {
    await provider.shutdown().catch((e: unknown) => logger.warn("span export did not flush", { error: String(e) }));
    trace.disable();
  };
}
