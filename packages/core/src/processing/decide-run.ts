import type { FlightState } from "../model/flight-state.js";
import { isTerminal, type ProcRecord } from "../model/proc-record.js";
import type { OutboxEventDraft } from "../outbox/outbox-event.js";
import type { BackfillEntry } from "../ports/mailbox.js";
import { evolveProc } from "./proc-machine.js";
import { DEFAULT_UNSUPPORTED_POLICY } from "../runtime/retry-policy.js";
import { PIPELINE_OPERATOR, type AuditEntry } from "./run-decision.js";
import type { IdentityBinding, RequestClose, RunDecision, RunWarning } from "./run-decision.js";
import type { OpenRequest } from "../requests/open-request.js";
import { refKey, type RefChange } from "../requests/reference-entry.js";
import { RunReferences } from "../requests/reference-view.js";
import { evolveRequest } from "../requests/request-machine.js";
import { toOpenRequest } from "../requests/request-record.js";
import { decideOne } from "./decide-one.js";
import { identityReusedAudit, identityVerdict } from "./identity-verdict.js";
import type { PreparedRun } from "./prepare-run.js";
import type { LoadedState, RunContext } from "./run-context.js";
import { snapshotLogEntry, type SnapshotLogEntry } from "./snapshot-log-entry.js";
import { unsupportedAudit, unsupportedSkipped } from "./unsupported-outcome.js";

/**
 * Pure: decides a run of consecutive messages in id order against the loaded state, as if each
 * were processed alone in its own transaction. The run stops after the first message that ends
 * FAILED (it keeps the head; nothing behind it may move). See SPEC §2.1–2.3 and seed 000 §3.3.
 */
export function decideRun(run: PreparedRun, loaded: LoadedState, ctx: RunContext): RunDecision {
  const owners = new Map(loaded.identityOwners);
  const flights = new Map(loaded.flights);
  const changed = new Map<string, FlightState>();
  const records: ProcRecord[] = [];
  const bindings: IdentityBinding[] = [];
  const events: OutboxEventDraft[] = [];
  const backfill: BackfillEntry[] = [];
  const references = new Map<string, RefChange>();
  const referenceView = new RunReferences(loaded.references);
  const closes: RequestClose[] = [];
  const snapshots: SnapshotLogEntry[] = [];
  const warnings: RunWarning[] = [];
  const audits: AuditEntry[] = [];
  const unsupported = ctx.unsupported ?? DEFAULT_UNSUPPORTED_POLICY;
  // A request answered earlier in the run is closed for the messages behind it: at most one reply applies.
  let open: readonly OpenRequest[] = loaded.requests?.flatMap((r) => toOpenRequest(r) ?? []) ?? loaded.openRequests ?? [];

  for (const m of run.messages) {
    const verdict = identityVerdict(m, owners, ctx);
    const one = verdict.kind === "duplicate" ? verdict.decision : decideOne(m, owners, flights, open, referenceView, ctx);
    const { event, meta, bind, applied, answered, warned } = unsupported.mode === "skip" ? unsupportedSkipped(one) : one;
    const reused = verdict.kind === "reused" && bind ? verdict : undefined;
    for (const w of [...(reused ? [reused.warning] : []), ...(warned ?? [])]) warnings.push({ msgId: m.record.msgId, ...w });
    const record = evolveProc(m.record, event, { now: ctx.now, identityKey: bind ? m.identityKey : m.record.identityKey, meta }, ctx.policy, unsupported);
    records.push(record);
    if (bind && m.identityKey !== null && m.record.identityKey === null) {
      owners.set(m.identityKey, { msgId: m.record.msgId, contentHash: m.contentHash, boundAt: ctx.now });
      bindings.push({ identityKey: m.identityKey, msgId: m.record.msgId, contentHash: m.contentHash, ...(reused ? { replaces: reused.previous.msgId } : {}) });
    }
    if (reused) audits.push(identityReusedAudit(m.record.msgId, reused.previous.msgId, reused.warning.detail, ctx.now));
    const audit = unsupportedAudit(event, record, ctx.now);
    if (audit !== undefined) audits.push(audit);
    if (applied) {
      for (const f of applied.flights) {
        flights.set(f.flid, f);
        changed.set(f.flid, f);
      }
      events.push(...applied.events);
      for (const r of applied.references ?? []) {
        references.set(refKey(r.rtype, r.rkey), r);
        referenceView.set(r);
      }
    }
    if (answered !== undefined) {
      open = open.filter((r) => r.requestId !== answered.request.requestId);
      const stored = loaded.requests?.find((r) => r.requestId === answered.request.requestId);
      if (stored !== undefined) {
        const match = { rule: answered.rule, msgId: m.record.msgId, replyDttm: meta?.dttm ?? "", replyAt: answered.replyAt, detail: answered.detail };
        closes.push({ request: evolveRequest(stored, { type: "answered", at: ctx.now, match }), expectedVersion: stored.version });
      }
    }
    const snapshot = snapshotLogEntry(m, record, flights);
    if (snapshot !== undefined) snapshots.push(snapshot);
    if (isTerminal(record.status)) {
      backfill.push({ msgId: record.msgId, processedAt: ctx.now, meta: record.meta });
    } else {
      break;
    }
  }
  return {
    records,
    bindings,
    flights: [...changed.values()],
    events,
    backfill,
    ...(closes.length > 0 ? { requests: closes } : {}),
    ...(references.size > 0 ? { references: [...references.values()] } : {}),
    ...(snapshots.length > 0 ? { snapshots } : {}),
    ...(audits.length > 0 ? { audits } : {}),
    ...(warnings.length > 0 ? { warnings } : {}),
  };
}

/** A decision that records one failure of one message outside a run (e.g. its commit failed). */
export function decideFailure(record: ProcRecord, reason: string, ctx: Pick<RunContext, "now" | "policy">): RunDecision {
  const next = evolveProc(record, { type: "failed", errorClass: "INFRA", reason }, { now: ctx.now }, ctx.policy);
  return {
    records: [next],
    bindings: [],
    flights: [],
    events: [],
    backfill: isTerminal(next.status) ? [{ msgId: next.msgId, processedAt: ctx.now, meta: next.meta }] : [],
  };
}

/** A decision that ends a held head as DEAD(EXHAUSTED); an UNSUPPORTED head's end is audited. */
export function decideExhaust(record: ProcRecord, reason: string, ctx: Pick<RunContext, "now" | "policy">): RunDecision {
  const next = evolveProc(record, { type: "exhausted", reason }, { now: ctx.now }, ctx.policy);
  const audits: AuditEntry[] =
    record.errorClass === "UNSUPPORTED"
      ? [{ at: ctx.now, operator: PIPELINE_OPERATOR, action: "unsupported-exhausted", msgIds: [record.msgId], detail: `${reason}; last: ${record.reason ?? ""}` }]
      : [];
  return {
    records: [next],
    bindings: [],
    flights: [],
    events: [],
    backfill: [{ msgId: next.msgId, processedAt: ctx.now, meta: next.meta }],
    ...(audits.length > 0 ? { audits } : {}),
  };
}
