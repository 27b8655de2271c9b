import type { BackfillEntry, BackfillResult, Mailbox, MailboxRow, RawRead } from "./mailbox.js";
import type { Clock } from "../runtime/clock.js";
import { FaultPlan } from "../testing/fault-plan.js";
import { CMINMSGS_SUBSYSTEM_COLUMNS, subsystemValues } from "./subsystem-columns.js";

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
      const fit = e.meta ? subsystemValues(e.meta, CMINMSGS_SUBSYSTEM_COLUMNS) : null;
      if (fit && !fit.ok) defects.push({ msgId: e.msgId, reason: fit.reason });
      else if (fit) row.subsystem = { ...fit.values };
      written.push(e.msgId);
    }
    return { written, alreadyDone, defects };
  }

  async append(rawXml: string): Promise<number> {
    this.faults.check("append");
    return this.insert(rawXml);
  }
}
