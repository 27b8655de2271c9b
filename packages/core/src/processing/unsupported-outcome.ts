import type { ProcRecord } from "../model/proc-record.js";
import type { OneDecision } from "./decide-one.js";
import type { ProcEvent } from "./proc-machine.js";
import { PIPELINE_OPERATOR, type AuditEntry } from "./run-decision.js";

/** `unsupported: skip` mode: an UNSUPPORTED failure ends SKIPPED `unsupported:<TYPE>/<STYP>` at once. */
export function unsupportedSkipped(one: OneDecision): OneDecision {
  if (one.event.type !== "failed" || one.event.errorClass !== "UNSUPPORTED") return one;
  const reason = one.meta === null ? one.event.reason : `unsupported:${one.meta.type}/${one.meta.styp}`;
  return { ...one, event: { type: "skipped", reason } };
}

/** The audit row of an UNSUPPORTED message that ended (skipped, or exhausted on its last attempt). */
export function unsupportedAudit(event: ProcEvent, record: ProcRecord, now: number): AuditEntry | undefined {
  if (event.type === "skipped" && event.reason.startsWith("unsupported:")) {
    return { at: now, operator: PIPELINE_OPERATOR, action: "unsupported-skipped", msgIds: [record.msgId], detail: event.reason };
  }
  if (event.type === "failed" && event.errorClass === "UNSUPPORTED" && record.status === "DEAD") {
    return { at: now, operator: PIPELINE_OPERATOR, action: "unsupported-exhausted", msgIds: [record.msgId], detail: record.reason ?? event.reason };
  }
  return undefined;
}
