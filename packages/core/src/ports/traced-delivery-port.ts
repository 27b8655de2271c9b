import { errorMessage } from "../errors/msgx-error.js";
import { EventHeader } from "../outbox/event-headers.js";
import { SpanName, type Tracer } from "../runtime/tracer.js";
import type { DeliveryPlacement, DeliveryPort, DeliveryRecord } from "./delivery-port.js";

/**
 * A `DeliveryPort` that reports one delivery span per record, a child of the record's stored
 * `traceparent` (the span that processed its message), and sends the delivery span's own
 * `traceparent` in the header so a consumer continues the trace below the send. A tracer that
 * records nothing passes the stored header on unchanged. Every guarantee of `inner` holds: the
 * records, their order and their batching are unchanged, and `inner`'s placements come back as they
 * are (each also ends its record's span as attributes).
 */
export function tracedDeliveryPort(inner: DeliveryPort, tracer: Tracer): DeliveryPort {
  return {
    async send(records: readonly DeliveryRecord[], signal?: AbortSignal): Promise<readonly (DeliveryPlacement | null)[]> {
      const spans = records.map((r) =>
        tracer.startSpan(SpanName.DELIVER, {
          parent: r.headers[EventHeader.TRACEPARENT] ?? null,
          attributes: {
            "messaging.destination.name": r.topic,
            "msgx.event_id": r.headers[EventHeader.EVENT_ID] ?? "",
            "msgx.source_msg_id": r.headers[EventHeader.SOURCE_MSG_ID] ?? "",
          },
        }),
      );
      const traced = records.map((r, i) => {
        const traceparent = spans[i]!.traceparent;
        return traceparent === null || traceparent === r.headers[EventHeader.TRACEPARENT]
          ? r
          : { ...r, headers: { ...r.headers, [EventHeader.TRACEPARENT]: traceparent } };
      });
      let placements: readonly (DeliveryPlacement | null)[];
      try {
        placements = await inner.send(traced, signal);
      } catch (e) {
        for (const span of spans) span.end({}, errorMessage(e));
        throw e;
      }
      spans.forEach((span, i) => {
        const placement = placements[i];
        // OpenTelemetry's messaging attributes: the record can be found from its span.
        span.end(placement ? { "messaging.destination.partition.id": String(placement.partition), "messaging.kafka.offset": placement.offset } : {});
      });
      return placements;
    },
  };
}
