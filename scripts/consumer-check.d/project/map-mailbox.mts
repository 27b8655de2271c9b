/**
 * A mailbox adapter as a consumer of msgx would write one: the `Mailbox` port of `@msgx/core` over a
 * plain `Map`. The consumer check runs core's published contract suite against it
 * (map-mailbox.contract.spec.mts), the way a third-party adapter proves conformance.
 */
import { CMINMSGS_SUBSYSTEM_COLUMNS, subsystemValues, type BackfillEntry, type BackfillResult, type Mailbox, type MailboxRow, type RawRead } from "@msgx/core";

interface Row {
  readonly raw: string;
  readonly receivedAt: number;
  readonly status: string;
  processedAt: number | null;
  subsystem: { name: string | null; sequence: number | null; type: string | null; subtype: string | null };
}

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
      // The upstream columns' rule is core's: a value that does not fit is a defect, never truncated.
      const fit = meta ? subsystemValues(meta, CMINMSGS_SUBSYSTEM_COLUMNS) : null;
      if (fit && !fit.ok) defects.push({ msgId, reason: fit.reason });
      else if (fit) row.subsystem = { name: fit.values.name, sequence: fit.values.sequence, type: fit.values.type, subtype: fit.values.subtype };
      written.push(msgId);
    }
    return { written, alreadyDone, defects };
  }

  async append(rawXml: string): Promise<number> {
    return this.insert(rawXml);
  }
}
