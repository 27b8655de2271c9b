import { REPLAYABLE_CLASSES, type ErrorClass } from "../errors/error-class.js";
import { ProcStatus, type ProcRecord } from "../model/proc-record.js";
import type { Clock } from "../runtime/clock.js";
import type { PipelineStore } from "../processing/pipeline-store.js";
import { evolveProc } from "../processing/proc-machine.js";
import { DEFAULT_RETRY_POLICY } from "../runtime/retry-policy.js";

/** Which messages an operator asks to replay: by class, by ids, or both (ids within classes). */
export interface ReplaySelection {
  readonly errorClasses?: readonly ErrorClass[];
  readonly msgIds?: readonly number[];
  readonly limit?: number;
}

/** One record as replay sees it. */
export interface ReplayPreview {
  readonly msgId: number;
  readonly status: ProcRecord["status"];
  readonly errorClass: ErrorClass | null;
  readonly reason: string | null;
  readonly eligible: boolean;
  /** Why it is not eligible. */
  readonly refusal?: string;
}

export interface ReplayResult {
  readonly replayed: readonly number[];
  readonly refused: readonly ReplayPreview[];
}

/** Whether a record may go back to PENDING (SPEC §2.7), and why not. */
export function replayEligibility(r: ProcRecord): { eligible: boolean; refusal?: string } {
  if (r.status !== ProcStatus.FAILED && r.status !== ProcStatus.DEAD) {
    return { eligible: false, refusal: `status ${r.status} is not FAILED or DEAD` };
  }
  if (r.errorClass === null || !REPLAYABLE_CLASSES.has(r.errorClass)) {
    return { eligible: false, refusal: `class ${r.errorClass ?? "none"} is never replayed` };
  }
  return { eligible: true };
}

/**
 * Replay (SPEC §2.7): moves CODEC_ERROR / UNSUPPORTED / INFRA / EXHAUSTED messages from
 * FAILED/DEAD back to PENDING with attempts reset, identity and error history kept, and an audit
 * row per call. A replayed message becomes the head again: replay does not restore the order it
 * had with messages already processed after it, which is why every call is audited and
 * `preview` exists. Run it where the pump is serialized with it (the runner does).
 */
export class ReplayService {
  constructor(private readonly deps: { store: PipelineStore; clock: Clock }) {}

  async preview(selection: ReplaySelection): Promise<readonly ReplayPreview[]> {
    const records = await this.deps.store.list({
      statuses: [ProcStatus.FAILED, ProcStatus.DEAD],
      ...(selection.errorClasses ? { errorClasses: selection.errorClasses } : {}),
      ...(selection.msgIds ? { msgIds: selection.msgIds } : {}),
      ...(selection.limit !== undefined ? { limit: selection.limit } : {}),
    });
    const byId = new Map(records.map((r) => [r.msgId, r]));
    // Asked-for ids that are not FAILED/DEAD still get a line saying why they were refused.
    const missing = (selection.msgIds ?? []).filter((id) => !byId.has(id));
    const others = missing.length ? await this.deps.store.list({ msgIds: missing }) : [];
    return [...records, ...others]
      .sort((a, b) => a.msgId - b.msgId)
      .map((r) => ({ msgId: r.msgId, status: r.status, errorClass: r.errorClass, reason: r.reason, ...replayEligibility(r) }));
  }

  async replay(selection: ReplaySelection, operator: string): Promise<ReplayResult> {
    const preview = await this.preview(selection);
    const ids = preview.filter((p) => p.eligible).map((p) => p.msgId);
    const now = this.deps.clock.now();
    const replayed = await this.deps.store.transaction(async (tx) => {
      // Re-check inside the transaction: a record may have moved since the preview.
      const current = (await tx.loadRecords(ids)).filter((r) => replayEligibility(r).eligible);
      const records = current.map((r) => evolveProc(r, { type: "replayed" }, { now }, DEFAULT_RETRY_POLICY));
      await tx.applyRun({ records, bindings: [], flights: [], events: [], backfill: [] });
      await tx.appendAudit({
        at: now,
        operator,
        action: "replay",
        msgIds: records.map((r) => r.msgId),
        detail: JSON.stringify({ selection, refused: preview.filter((p) => !p.eligible).map((p) => p.msgId) }),
      });
      return records.map((r) => r.msgId);
    });
    return { replayed, refused: preview.filter((p) => !p.eligible) };
  }
}
