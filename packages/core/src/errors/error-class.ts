import { states, type ValueOf } from "../base/states.js";

/**
 * The error classes of SPEC §2.1. Each class fixes what happens to the message it lands on.
 *
 * - `MALFORMED`: not XML, not our envelope, or raw text missing. DEAD at once, never replayable.
 * - `PROTOCOL`: the whole package is refused (declared count, operation day, missing payload).
 *   DEAD at once, nothing written.
 * - `CODEC_ERROR`: a valid envelope the decoder cannot handle yet. FAILED with backoff; replayable.
 * - `UNSUPPORTED`: no processor for the kind. FAILED with backoff; replayable.
 * - `INFRA`: a fault while processing this one message (database constraint, processor bug).
 *   FAILED with backoff; replayable. A dependency *outage* is not INFRA: see {@link isOutage}.
 * - `EXHAUSTED`: attempts used up or the head held too long. DEAD; replayable after review.
 */
export const ErrorClass = states("MALFORMED", "PROTOCOL", "CODEC_ERROR", "UNSUPPORTED", "INFRA", "EXHAUSTED");
export type ErrorClass = ValueOf<typeof ErrorClass>;

/** Classes an operator may send back to PENDING (SPEC §2.7). MALFORMED and PROTOCOL never are. */
export const REPLAYABLE_CLASSES: ReadonlySet<ErrorClass> = new Set([
  ErrorClass.CODEC_ERROR,
  ErrorClass.UNSUPPORTED,
  ErrorClass.INFRA,
  ErrorClass.EXHAUSTED,
]);
