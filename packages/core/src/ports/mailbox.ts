import type { Meta } from "../model/meta.js";

/** One row of the inbound mailbox as the poller sees it: no message text, just order and state. */
export interface MailboxRow {
  readonly msgId: number;
  /** `DATE_RECEIVED` as an instant (epoch ms). */
  readonly receivedAt: number;
  /**
   * True when the row still wants processing: `DATE_PROCESSED IS NULL` and (if configured)
   * `STATUS = 'VALID'`. Rows that are not pending are still returned, so the poller can tell a
   * processed or filtered row from a gap in the id sequence.
   */
  readonly pending: boolean;
}

/** The raw text of one message, or the fact that its row is not there. */
export type RawRead = { readonly found: true; readonly text: string } | { readonly found: false };

/** What to write back to the mailbox once a message reached a terminal state. */
export interface BackfillEntry {
  readonly msgId: number;
  /** When processing ended (written as `DATE_PROCESSED`). */
  readonly processedAt: number;
  /** The decoded envelope, written to the `SUBSYSTEM_*` columns; null when it never decoded. */
  readonly meta: Meta | null;
}

/** The outcome of a backfill call, per entry. */
export interface BackfillResult {
  /** Rows this call set `DATE_PROCESSED` on. */
  readonly written: readonly number[];
  /** Rows that were already backfilled (idempotent success) or are gone. */
  readonly alreadyDone: readonly number[];
  /**
   * Rows written without some `SUBSYSTEM_*` value because it does not fit its column: reported as a
   * defect, never truncated. These rows count as backfilled.
   */
  readonly defects: readonly { readonly msgId: number; readonly reason: string }[];
}

/**
 * The shared inbound mailbox (`CMINMSGS`), owned by the upstream. msgx reads it, backfills
 * `DATE_PROCESSED`, and (for HTTP ingress only) appends to it.
 *
 * Every implementation guarantees:
 * - `scan` returns rows with `msgId > afterId` in ascending id order, at most `limit`, each
 *   committed row exactly once per call; it never returns an uncommitted row.
 * - `readRaw` answers `{ found: false }` only when the row is really absent; a failed read throws
 *   a `MsgxError` of kind `DEPENDENCY_UNAVAILABLE` (never disguised as "missing").
 * - `backfill` is idempotent (`WHERE DATE_PROCESSED IS NULL`), writes all entries of one call in a
 *   bounded number of statements (not one autocommit each), and never truncates a value.
 * - `append` returns the new row's id only after the insert committed.
 * - Driver errors leave as `MsgxError`: connection loss/timeouts as `DEPENDENCY_UNAVAILABLE`.
 */
export interface Mailbox {
  scan(afterId: number, limit: number, signal?: AbortSignal): Promise<readonly MailboxRow[]>;
  readRaw(msgIds: readonly number[], signal?: AbortSignal): Promise<ReadonlyMap<number, RawRead>>;
  backfill(entries: readonly BackfillEntry[], signal?: AbortSignal): Promise<BackfillResult>;
  append(rawXml: string, signal?: AbortSignal): Promise<number>;
  /**
   * Rows another writer of this process appended and committed (the runner's ingress thread,
   * which owns its own connections): the mailbox may keep their texts for `readRaw`, as it keeps
   * those `append` wrote. Optional: without it `readRaw` reads them from the table.
   */
  appendedElsewhere?(appends: readonly AppendedElsewhere[]): void;
}

/** One row appended and committed outside this mailbox object (see `Mailbox.appendedElsewhere`). */
export interface AppendedElsewhere {
  readonly msgId: number;
  readonly text: string;
  /** The request's `traceparent` header as sent, if any. */
  readonly traceparent?: string;
  /** Epoch milliseconds when the INSERT returned. */
  readonly committedAt: number;
}
