import type { FlightState } from "../model/flight-state.js";
import type { Meta } from "../model/meta.js";
import type { OutboxEventDraft } from "../outbox/outbox-event.js";
import { firstOversized } from "../outbox/record-size.js";
import { errorMessage } from "../errors/msgx-error.js";
import type { OpenRequest } from "../requests/open-request.js";
import type { ReferenceView } from "../requests/reference-view.js";
import type { ReplyMatch } from "../requests/reply-match.js";
import type { ProcEvent } from "./proc-machine.js";
import { processorFor, type MessageWarning, type ProcessorResult } from "./processor.js";
import type { PreparedMessage } from "./prepare-run.js";
import type { RunContext } from "./run-context.js";
import type { IdentityOwner } from "./run-decision.js";

/** What one message of a run comes to, before its record evolves. */
export interface OneDecision {
  readonly event: ProcEvent;
  readonly meta: Meta | null;
  /** Whether this message's identity binds (every outcome after the duplicate check). */
  readonly bind: boolean;
  readonly applied?: Extract<ProcessorResult, { type: "applied" }>;
  /** The open request this message answered (it ended SUCCEEDED or SKIPPED). */
  readonly answered?: ReplyMatch;
  readonly warned?: readonly MessageWarning[];
}

/** Decides one message that passed the duplicate check: decode outcome, kind, then its processor. */
export function decideOne(
  m: PreparedMessage,
  owners: ReadonlyMap<string, IdentityOwner>,
  flights: ReadonlyMap<string, FlightState>,
  openRequests: readonly OpenRequest[],
  references: ReferenceView,
  ctx: RunContext,
): OneDecision {
  const d = m.decoded;
  if (d === undefined) return { event: { type: "rejected", errorClass: "MALFORMED", reason: "raw-missing" }, meta: null, bind: false };
  const meta = d.ok ? d.message.meta : d.meta;
  if (!d.ok && d.errorClass === "MALFORMED") {
    return { event: { type: "rejected", errorClass: "MALFORMED", reason: d.reason }, meta, bind: false };
  }
  if (!d.ok) {
    return d.errorClass === "PROTOCOL"
      ? { event: { type: "rejected", errorClass: "PROTOCOL", reason: d.reason }, meta, bind: true }
      : { event: { type: "failed", errorClass: "CODEC_ERROR", reason: d.reason }, meta, bind: true };
  }
  const body = d.message.body;
  if (body.kind === "ignorable") {
    return { event: { type: "skipped", reason: `ignored:${body.styp === undefined ? body.type : `${body.type}/${body.styp}`}` }, meta, bind: true };
  }
  if (body.kind === "unsupported") {
    return { event: { type: "failed", errorClass: "UNSUPPORTED", reason: `unsupported:${body.type}/${body.styp}` }, meta, bind: true };
  }
  const processor = processorFor(ctx.processors, body);
  if (processor === undefined) {
    return { event: { type: "failed", errorClass: "UNSUPPORTED", reason: `unsupported:${d.message.meta.type}/${d.message.meta.styp}: no processor for ${body.kind}` }, meta, bind: true };
  }
  let result: ProcessorResult;
  try {
    result = processor.apply(body, { msgId: m.record.msgId, meta: d.message.meta, now: ctx.now, flights, openRequests, references });
  } catch (e) {
    // A processor bug is a fault of this message's processing: retried, then EXHAUSTED.
    return { event: { type: "failed", errorClass: "INFRA", reason: `processor error: ${errorMessage(e)}` }, meta, bind: true };
  }
  switch (result.type) {
    case "applied": {
      const unpublishable = oversizeReason(result.events, ctx.maxRecordBytes);
      if (unpublishable !== undefined) return { event: { type: "rejected", errorClass: "PROTOCOL", reason: unpublishable }, meta, bind: true };
      return {
        event: { type: "succeeded", ...(result.reason ? { reason: result.reason } : {}) },
        meta,
        bind: true,
        applied: result,
        ...(result.answered ? { answered: result.answered } : {}),
        ...(result.warnings ? { warned: result.warnings } : {}),
      };
    }
    case "skipped":
      return {
        event: { type: "skipped", reason: result.reason },
        meta,
        bind: true,
        ...(result.answered ? { answered: result.answered } : {}),
        ...(result.warnings ? { warned: result.warnings } : {}),
      };
    case "rejected":
      return { event: { type: "rejected", errorClass: "PROTOCOL", reason: result.reason }, meta, bind: true };
    case "failed":
      return { event: { type: "failed", errorClass: result.errorClass, reason: result.reason }, meta, bind: true };
  }
}

/**
 * Why a message cannot be accepted when one of its events could never be published: the broker
 * would refuse the record for its size (MESSAGE_TOO_LARGE) on every attempt, and Kafka would
 * stop following the flight's state. Checked before anything of the message is applied.
 */
function oversizeReason(events: readonly OutboxEventDraft[], limit: number | undefined): string | undefined {
  if (limit === undefined || limit <= 0) return undefined;
  const over = firstOversized(events, limit);
  if (over === undefined) return undefined;
  const key = over.event.partitionKey.length > 40 ? `${over.event.partitionKey.slice(0, 40)}…` : over.event.partitionKey;
  return `unpublishable: event ${over.event.target} key ${key} would be ${over.bytes} bytes, over the broker limit of ${limit} bytes`;
}
