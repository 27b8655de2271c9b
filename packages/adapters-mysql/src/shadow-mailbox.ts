import { MsgxError, type BackfillEntry, type BackfillResult, type Mailbox, type MailboxRow, type RawRead } from "@msgx/core";

/**
 * Shadow mode (SPEC §2.5): reads and processes, never writes the shared mailbox. Wraps any
 * `Mailbox`:
 * - `scan` and `readRaw` pass through.
 * - `backfill` writes nothing and answers every entry as `alreadyDone`. The pump and the
 *   backfill sweep then delete the todo: in shadow mode the system being shadowed owns
 *   `DATE_PROCESSED`, so there is no debt of ours to keep (a kept todo would be retried and
 *   counted as backfill debt forever). Consequence: rows processed in shadow mode are never
 *   backfilled by msgx, even after switching to live; the shadowed system has done it.
 * - `append` refuses with `MsgxError("CONFIG")`: ingress must not write the shared mailbox.
 *
 * The shadowed system sets `DATE_PROCESSED` as it goes, so a scan would see most rows already
 * processed; build the inner `MysqlMailbox` with `pendingIgnoresDateProcessed: true`.
 */
export class ShadowMailbox implements Mailbox {
  constructor(readonly inner: Mailbox) {}

  scan(afterId: number, limit: number, signal?: AbortSignal): Promise<readonly MailboxRow[]> {
    return this.inner.scan(afterId, limit, signal);
  }

  readRaw(msgIds: readonly number[], signal?: AbortSignal): Promise<ReadonlyMap<number, RawRead>> {
    return this.inner.readRaw(msgIds, signal);
  }

  async backfill(entries: readonly BackfillEntry[], _signal?: AbortSignal): Promise<BackfillResult> {
    return { written: [], alreadyDone: [...new Set(entries.map((e) => e.msgId))], defects: [] };
  }

  async append(_rawXml: string, _signal?: AbortSignal): Promise<number> {
    throw new MsgxError("CONFIG", "shadow mode: msgx never writes the shared mailbox (append refused)", { retriable: false });
  }
}
