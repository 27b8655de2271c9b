import type { InboxEntry, IntakeState } from "../ports/pipeline-store.js";
import { InMemoryPipelineStore } from "../testing/in-memory-pipeline-store.js";
import type { ArchivedRecord } from "./maintenance-store.js";

/**
 * The in-memory `PipelineStore` with a `PROC_STATE_HST` table beside it, as the PostgreSQL store
 * has: `enqueue` ignores ids that were archived (they are not inserted again, nor returned), so an
 * archived message is never processed a second time. Pair it with `InMemoryMaintenanceStore`.
 */
export class InMemoryArchivingPipelineStore extends InMemoryPipelineStore {
  /** `PROC_STATE_HST`: archived terminal records by id. */
  readonly archive = new Map<number, ArchivedRecord>();

  override async enqueue(entries: readonly InboxEntry[], intake: IntakeState): Promise<readonly number[]> {
    return super.enqueue(
      entries.filter((e) => !this.archive.has(e.msgId)),
      intake,
    );
  }
}
