import type { FlightState } from "../model/flight-state.js";
import type { Meta } from "../model/meta.js";
import type { MsgKind, MsgKindName } from "../model/msg-kind.js";
import type { OutboxEventDraft } from "../outbox/outbox-event.js";
import type { RefChange } from "../requests/reference-entry.js";
import type { ReferenceView } from "../requests/reference-view.js";
import type { ReplyMatch } from "../requests/reply-match.js";
import type { OpenRequest } from "../requests/open-request.js";

/** Read access to flights as they stand at this point of the run (earlier messages applied). */
export interface FlightView {
  /** The flight, or undefined when it was never stored (a deleted flight is returned, `deleted: true`). */
  get(flid: string): FlightState | undefined;
}

export interface ProcessorContext {
  readonly msgId: number;
  readonly meta: Meta;
  /** Clock time of this run (epoch ms). Processors must not read time any other way. */
  readonly now: number;
  readonly flights: FlightView;
  /** Upstream requests still open at the start of the run (for reply matching). */
  readonly openRequests: readonly OpenRequest[];
  /**
   * Reference rows as they stand at this point of the run, for the types of the run's reference
   * messages (`decideRun` always gives it; absent, as in a test of a flight processor, none are stored).
   */
  readonly references?: ReferenceView;
}

/**
 * Something a message did that operators must hear about although it is not a fault (WIRE.md:
 * an FFID that differs from the state after the block, a taken identity whose body differs, a
 * reference RECS that disagrees with its records). The pump logs each at warn level and the
 * runner counts them by `code` (`msgx_message_warnings_total`).
 */
export interface MessageWarning {
  /** Stable, lower-case, dash-separated: `ffid-mismatch`, `content-differs`, `recs-mismatch`, … */
  readonly code: string;
  /** Human-readable detail naming the FLID / key / values involved. */
  readonly detail: string;
}

/**
 * What a processor decided for one message. A processor is pure: it reads the context and
 * returns new flight states and events; it writes nothing itself.
 * - `applied`: SUCCEEDED. `flights` are the new states of the flights that really changed (empty
 *   for an idempotent re-delivery); `events` their outbox rows, one per flight per target.
 * - `skipped`: SKIPPED with a reason (`no-flight:<FLID>`, `no-request`); nothing written.
 * - `rejected`: DEAD(PROTOCOL); nothing written.
 * - `failed`: FAILED with backoff (UNSUPPORTED, CODEC_ERROR); nothing written.
 *
 * A reply that matched an open request says so in `answered` (on `applied`, or on `skipped` when
 * it was a valid answer with nothing to change): the run closes that request (DONE) in the same
 * transaction. `references` are the `REF_MASTER` changes the message makes, in order (each with
 * its event among `events`).
 */
export type ProcessorResult =
  | {
      readonly type: "applied";
      readonly flights: readonly FlightState[];
      readonly events: readonly OutboxEventDraft[];
      readonly reason?: string;
      readonly answered?: ReplyMatch;
      readonly references?: readonly RefChange[];
      readonly warnings?: readonly MessageWarning[];
    }
  | { readonly type: "skipped"; readonly reason: string; readonly answered?: ReplyMatch; readonly warnings?: readonly MessageWarning[] }
  | { readonly type: "rejected"; readonly reason: string }
  | { readonly type: "failed"; readonly errorClass: "UNSUPPORTED" | "CODEC_ERROR"; readonly reason: string };

/** Applies one kind of message. Registered in a {@link ProcessorTable} by kind. */
export interface Processor<B extends MsgKind = MsgKind> {
  /** Every FLID this message may read or change, so a run loads them all in one query. */
  flightsOf(body: B): readonly string[];
  apply(body: B, ctx: ProcessorContext): ProcessorResult;
}

/** Processors by message kind. A kind with no entry ends FAILED(UNSUPPORTED). */
export type ProcessorTable = {
  readonly [K in MsgKindName]?: Processor<Extract<MsgKind, { kind: K }>>;
};

/** The processor of a message body's kind, if the table has one. */
export function processorFor(table: ProcessorTable, body: MsgKind): Processor | undefined {
  return table[body.kind] as Processor | undefined;
}
