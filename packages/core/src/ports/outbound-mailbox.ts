/**
 * The outbound mailbox (`COUTMSGS`, WIRE.md): requests msgx sends upstream (RQFD, RQRD). The
 * upstream's sender picks rows up, stamps `DATE_SENT`, and may record an acknowledgement.
 */
export interface OutboundRow {
  readonly id: number;
  readonly routingId: string;
  readonly rawXml: string;
  /** `DATE_INSERTED` (epoch ms). */
  readonly insertedAt: number;
  /** `DATE_SENT`: when the upstream sent it on; null until then. */
  readonly sentAt: number | null;
  /** The upstream's acknowledgement columns; all null until it acknowledges. */
  readonly ack: { readonly status: string | null; readonly text: string | null; readonly at: number | null };
}

/** How to look rows up: by id, or by exactly what was inserted (crash recovery). */
export type OutboundQuery =
  | { readonly ids: readonly number[] }
  | {
      readonly routingId: string;
      readonly rawXml: string;
      /** Only rows inserted at or after this instant (bounds the search; epoch ms). */
      readonly insertedSince?: number;
    };

/**
 * Every implementation guarantees:
 * - `insert` returns the new row's id only after the insert committed; a lost connection during
 *   COMMIT throws `MsgxError("COMMIT_UNKNOWN")`: the row may exist, so the caller must `find`
 *   before it inserts again (SPEC §2.6: no blind resend).
 * - `find` returns every matching committed row, ascending by id; by content the match is exact
 *   (byte for byte, not by collation). A failed read throws, never answers "none".
 * - Driver errors leave as `MsgxError`: connection loss/timeouts as `DEPENDENCY_UNAVAILABLE`.
 */
export interface OutboundMailbox {
  /** Inserts one request row; resolves with its id once committed. */
  insert(rawXml: string, routingId: string, signal?: AbortSignal): Promise<number>;
  /** Committed rows by id or by exact content (see {@link OutboundQuery}), ascending by id. */
  find(query: OutboundQuery, signal?: AbortSignal): Promise<readonly OutboundRow[]>;
}
