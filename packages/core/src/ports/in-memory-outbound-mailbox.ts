import { MsgxError } from "../errors/msgx-error.js";
import type { Clock } from "../runtime/clock.js";
import type { OutboundMailbox, OutboundQuery, OutboundRow } from "./outbound-mailbox.js";
import { FaultPlan } from "../testing/fault-plan.js";

/**
 * The in-memory `COUTMSGS`: an array of rows with an auto-increment id. Fault hooks: `faults`
 * (outage, fail next N of `insert`/`find`), `commitUnknownNext` (the insert commits, then the
 * caller is told the outcome is unknown — the crash window of SPEC §2.6), `pickUp` for
 * the upstream's side.
 */
export class InMemoryOutboundMailbox implements OutboundMailbox {
  readonly rows: OutboundRow[] = [];
  readonly faults = new FaultPlan("outbound-mailbox");
  /** When set, the next insert commits and then throws `COMMIT_UNKNOWN`. */
  commitUnknownNext = false;
  #nextId = 1;

  constructor(private readonly clock: Clock) {}

  async insert(rawXml: string, routingId: string): Promise<number> {
    this.faults.check("insert");
    if (routingId === "") throw new RangeError("outbound insert: routingId must not be empty");
    const id = this.#nextId++;
    this.rows.push({ id, routingId, rawXml, insertedAt: this.clock.now(), sentAt: null, ack: { status: null, text: null, at: null } });
    if (this.commitUnknownNext) {
      this.commitUnknownNext = false;
      throw new MsgxError("COMMIT_UNKNOWN", "connection lost during COMMIT (simulated; it did commit)");
    }
    return id;
  }

  async find(query: OutboundQuery): Promise<readonly OutboundRow[]> {
    this.faults.check("find");
    if ("ids" in query) return this.rows.filter((r) => query.ids.includes(r.id));
    return this.rows.filter(
      (r) => r.routingId === query.routingId && r.rawXml === query.rawXml && (query.insertedSince === undefined || r.insertedAt >= query.insertedSince),
    );
  }

  /** The upstream's sender took the row (`DATE_SENT`). */
  pickUp(id: number, at = this.clock.now()): void {
    const i = this.rows.findIndex((r) => r.id === id);
    const row = this.rows[i];
    if (row !== undefined) this.rows[i] = { ...row, sentAt: at };
  }
}
