import type { Meta } from "../model/meta.js";
import type { BackfillEntry, BackfillResult, Mailbox, MailboxRow, RawRead } from "./mailbox.js";
import type { Clock } from "../runtime/clock.js";
import { FaultPlan } from "../testing/fault-plan.js";

/** A `CMINMSGS` row of the fake. `visible` is false between an id's reservation and its commit. */
export interface FakeMailboxRow {
  readonly msgId: number;
  raw: string;
  receivedAt: number;
  status: string;
  processedAt: number | null;
  subsystem: { name: string | null; sequence: number | null; dateSent: string | null; type: string | null; subtype: string | null };
  visible: boolean;
}

/** Column widths of the upstream table (WIRE.md): longer values are defects, never truncated. */
export const SUBSYSTEM_LIMITS = { name: 4, type: 4, subtype: 4, maxSequence: 8_388_607 } as const;

/**
 * The in-memory mailbox: an ordered map of rows with an auto-increment id. `reserve` hands out an
 * id whose row is not committed yet, as a concurrent upstream insert would.
 */
export class InMemoryMailbox implements Mailbox {
  readonly rows = new Map<number, FakeMailboxRow>();
  readonly faults = new FaultPlan("mailbox");
  #nextId = 1;

  constructor(
    private readonly clock: Clock,
    private readonly options: { readonly onlyValid?: boolean } = {},
  ) {}

  /** Allocates an id whose insert has not committed (invisible to scans). */
  reserve(raw: string): number {
    const msgId = this.#nextId++;
    this.rows.set(msgId, {
      msgId,
      raw,
      receivedAt: this.clock.now(),
      status: "VALID",
      processedAt: null,
      subsystem: { name: null, sequence: null, dateSent: null, type: null, subtype: null },
      visible: false,
    });
    return msgId;
  }
  /** Commits a reserved insert. */
  commit(msgId: number): void {
    const row = this.rows.get(msgId);
    if (row) row.visible = true;
  }
  /** Rolls back a reserved insert: the id stays a permanent gap. */
  rollback(msgId: number): void {
    if (this.rows.get(msgId)?.visible === false) this.rows.delete(msgId);
  }
  /** Inserts and commits a row at once (test seeding; no fault check). */
  insert(raw: string, status = "VALID"): number {
    const id = this.reserve(raw);
    this.rows.get(id)!.status = status;
    this.commit(id);
    return id;
  }

  async scan(afterId: number, limit: number): Promise<readonly MailboxRow[]> {
    this.faults.check("scan");
    return [...this.rows.values()]
      .filter((r) => r.visible && r.msgId > afterId)
      .sort((a, b) => a.msgId - b.msgId)
      .slice(0, limit)
      .map((r) => ({
        msgId: r.msgId,
        receivedAt: r.receivedAt,
        pending: r.processedAt === null && (!this.options.onlyValid || r.status === "VALID"),
      }));
  }

  async readRaw(msgIds: readonly number[]): Promise<ReadonlyMap<number, RawRead>> {
    this.faults.check("readRaw");
    return new Map(
      msgIds.map((id): [number, RawRead] => {
        const row = this.rows.get(id);
        return [id, row?.visible ? { found: true, text: row.raw } : { found: false }];
      }),
    );
  }

  async backfill(entries: readonly BackfillEntry[]): Promise<BackfillResult> {
    this.faults.check("backfill");
    const written: number[] = [];
    const alreadyDone: number[] = [];
    const defects: { msgId: number; reason: string }[] = [];
    for (const e of entries) {
      const row = this.rows.get(e.msgId);
      if (!row?.visible || row.processedAt !== null) {
        alreadyDone.push(e.msgId);
        continue;
      }
      row.processedAt = e.processedAt;
      const defect = e.meta ? subsystemDefect(e.meta) : null;
      if (defect) defects.push({ msgId: e.msgId, reason: defect });
      else if (e.meta) {
        row.subsystem = { name: e.meta.sndr, sequence: e.meta.seqn, dateSent: e.meta.dttm, type: e.meta.type, subtype: e.meta.styp };
      }
      written.push(e.msgId);
    }
    return { written, alreadyDone, defects };
  }

  async append(rawXml: string): Promise<number> {
    this.faults.check("append");
    return this.insert(rawXml);
  }
}

/** Why META does not fit the `SUBSYSTEM_*` columns, or null when it fits. */
export function subsystemDefect(meta: Meta): string | null {
  if (meta.sndr.length > SUBSYSTEM_LIMITS.name) return `SUBSYSTEM_NAME too long: ${meta.sndr}`;
  if (meta.type.length > SUBSYSTEM_LIMITS.type) return `SUBSYSTEM_TYPE too long: ${meta.type}`;
  if (meta.styp.length > SUBSYSTEM_LIMITS.subtype) return `SUBSYSTEM_SUBTYPE too long: ${meta.styp}`;
  if (meta.seqn > SUBSYSTEM_LIMITS.maxSequence) return `SUBSYSTEM_SEQUENCE out of range: ${meta.seqn}`;
  return null;
}
