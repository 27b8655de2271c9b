import { ErrorClass } from "../errors/error-class.js";
import { ProcStatus, type ProcRecord } from "../model/proc-record.js";

/** What the type policy did to a message, for metrics (WIRE.md: ignored and unsupported are counted). */
export type TypeOutcome = "ignored" | "unsupported-failed" | "unsupported-exhausted" | "unsupported-skipped";

/**
 * Pure: whether a record just decided was ignored or unsupported by the type policy, and its META
 * TYPE; undefined for any other outcome. An EXHAUSTED record counts as unsupported when its last
 * fault before exhaustion was UNSUPPORTED.
 */
export function typeOutcomeOf(record: ProcRecord): { readonly outcome: TypeOutcome; readonly type: string } | undefined {
  const type = record.meta?.type ?? "";
  if (record.status === ProcStatus.SKIPPED && record.reason !== null) {
    if (record.reason.startsWith("ignored:")) return { outcome: "ignored", type };
    if (record.reason.startsWith("unsupported:")) return { outcome: "unsupported-skipped", type };
  }
  if (record.status === ProcStatus.FAILED && record.errorClass === ErrorClass.UNSUPPORTED) return { outcome: "unsupported-failed", type };
  if (record.status === ProcStatus.DEAD && record.errorClass === ErrorClass.EXHAUSTED) {
    const lastFault = [...record.history].reverse().find((h) => h.errorClass !== ErrorClass.EXHAUSTED);
    if (lastFault?.errorClass === ErrorClass.UNSUPPORTED) return { outcome: "unsupported-exhausted", type };
  }
  return undefined;
}
