/**
 * The envelope header of every SIS message (WIRE.md "Envelope").
 * `dttm` is the sender's airport-local time, kept as `yyyyMMddHHmmss` text.
 */
export interface Meta {
  /** Sender, 1–4 of `[A-Z0-9]`. */
  readonly sndr: string;
  /** Sender sequence number; upstream counters wrap (e.g. at 999999). */
  readonly seqn: number;
  /** `yyyyMMddHHmmss`, airport local time. */
  readonly dttm: string;
  /** 3–4 letters. */
  readonly type: string;
  /** 1–4 letters, or `NONE`. */
  readonly styp: string;
}
