import { FaultPlan } from "@msgx/core/fakes";
import type { ConsumeLog, ConsumeLogEntry } from "./consume-log.js";

/** A transaction of the in-memory consumer database: writes are staged and run at commit. */
export interface InMemoryConsumerTx {
  /** Stages a business write of the handler; it runs only if the transaction commits. */
  stage(write: () => void): void;
}

/**
 * The in-memory `ConsumeLog` and consumer database: one transaction at a time (a serial tail, as
 * a row lock on the claimed id would serialize them), staged writes applied at commit, nothing on
 * rollback. `faults` fails `transaction`, `claim`, `commit` or `purge` on demand.
 */
export class InMemoryConsumeLog implements ConsumeLog<InMemoryConsumerTx> {
  readonly entries = new Map<string, ConsumeLogEntry>();
  readonly faults = new FaultPlan("consumer-db");
  #tail: Promise<unknown> = Promise.resolve();

  transaction<T>(fn: (tx: InMemoryConsumerTx) => Promise<T>): Promise<T> {
    const run = this.#tail.then(() => this.#run(fn));
    this.#tail = run.catch(() => undefined);
    return run;
  }

  async #run<T>(fn: (tx: InMemoryConsumerTx) => Promise<T>): Promise<T> {
    this.faults.check("transaction");
    const staged: (() => void)[] = [];
    const claimed = new Map<string, ConsumeLogEntry>();
    const tx: InMemoryConsumerTx & { claimed: Map<string, ConsumeLogEntry> } = { stage: (w) => staged.push(w), claimed };
    const result = await fn(tx);
    this.faults.check("commit");
    for (const [id, entry] of claimed) this.entries.set(id, entry);
    for (const write of staged) write();
    return result;
  }

  async claim(tx: InMemoryConsumerTx, entry: ConsumeLogEntry): Promise<boolean> {
    this.faults.check("claim");
    const claimed = (tx as { claimed?: Map<string, ConsumeLogEntry> }).claimed;
    if (claimed === undefined) throw new Error("claim outside a transaction of this consume log");
    if (this.entries.has(entry.messageId) || claimed.has(entry.messageId)) return false;
    claimed.set(entry.messageId, entry);
    return true;
  }

  async purge(before: number, limit: number): Promise<number> {
    this.faults.check("purge");
    const doomed = [...this.entries.values()]
      .filter((e) => e.consumedAt < before)
      .sort((a, b) => a.consumedAt - b.consumedAt || (a.messageId < b.messageId ? -1 : a.messageId > b.messageId ? 1 : 0))
      .slice(0, limit >= 1 ? Math.floor(limit) : 0);
    for (const e of doomed) this.entries.delete(e.messageId);
    return doomed.length;
  }
}
