/**
 * A mailbox adapter as a consumer of msgx would write one: the `Mailbox` port of `@msgx/core` over a
 * plain `Map`. The consumer check runs core's published contract suite against it
 * (map-mailbox.contract.spec.mts), the way a third-party adapter proves conformance.
 */
import type { BackfillEntry, BackfillResult, Mailbox, MailboxRow, Meta, RawRead } from "@msgx/core";

interface Row {
  readonly raw: string;
  readonly receivedAt: number;
  readonly status: string;
  processedAt: number | null;
  subsystem: { name: string | null; sequence: number | null; type: string | null; subtype: string | null };
}

/** The upstream table's column widths: a longer value is a defect, never truncated. */
const tooLong = (meta: Meta): boolean => meta.sndr.length > 4 || meta.type.length > 4 || meta.styp.length > 4 || meta.seqn > 8_388_607;

export class MapMailbox implements Mailbox {
  readonly rows = new Map<number, Row>();
  #nextId = 1;

  constructor(private readonly onlyValid = false) {}

  /** The upstream's insert (committed at once). */
  insert(raw: string, status = "VALID"): number {
    const id = this.#nextId++;
    this.rows.set(id, { raw, receivedAt: Date.now(), status, processedAt: null, subsystem: { name: null, sequence: null, type: null, subtype: null } });
    return id;
  }

  async scan(afterId: number, limit: number): Promise<readonly MailboxRow[]> {
    return [...this.rows.entries()]
      .filter(([id]) => id > afterId)
      .sort(([a], [b]) => a - b)
      .slice(0, limit)
      .map(([msgId, r]) => ({ msgId, receivedAt: r.receivedAt, pending: r.processedAt === null && (!this.onlyValid || r.status === "VALID") }));
  }

  async readRaw(msgIds: readonly number[]): Promise<ReadonlyMap<number, RawRead>> {
    return new Map(msgIds.map((id): [number, RawRead] => {
      const row = this.rows.get(id);
      return [id, row ? { found: true, text: row.raw } : { found: false }];
    }));
  }

  async backfill(entries: readonly BackfillEntry[]): Promise<BackfillResult> {
    const written: number[] = [];
    const alreadyDone: number[] = [];
    const defects: { msgId: number; reason: string }[] = [];
    for (const { msgId, processedAt, meta } of entries) {
      const row = this.rows.get(msgId);
      if (!row || row.processedAt !== null) {
        alreadyDone.push(msgId);
        continue;
      }
      row.processedAt = processedAt;
      if (meta && tooLong(meta)) defects.push({ msgId, reason: "a SUBSYSTEM value does not fit its column" });
      else if (meta) row.subsystem = { name: meta.sndr, sequence: meta.seqn, type: meta.type, subtype: meta.styp };
      written.push(msgId);
    }
    return { written, alreadyDone, defects };
  }

  async append(rawXml: string): Promise<number> {
    return this.insert(rawXml);
  }
}
