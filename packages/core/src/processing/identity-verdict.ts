import { DEFAULT_IDENTITY_WINDOW_MS } from "../model/identity.js";
import type { OneDecision } from "./decide-one.js";
import type { PreparedMessage } from "./prepare-run.js";
import type { MessageWarning } from "./processor.js";
import type { RunContext } from "./run-context.js";
import { PIPELINE_OPERATOR, type AuditEntry, type IdentityOwner } from "./run-decision.js";

/**
 * What a message's identity says before anything else is decided: `free` (process it and bind),
 * `duplicate` (its outcome, decided here), or `reused` (a new message that takes the identity over
 * from `previous`, warned as such).
 */
export type IdentityVerdict =
  | { readonly kind: "free" }
  | { readonly kind: "duplicate"; readonly decision: OneDecision }
  | { readonly kind: "reused"; readonly previous: IdentityOwner; readonly warning: MessageWarning };

const FREE: IdentityVerdict = { kind: "free" };

/**
 * The duplicate check (SPEC §2.2, WIRE.md "SEQN and identity"), before anything else a decoded
 * envelope can lead to. A message whose identity another message holds is SKIPPED
 * `duplicate-of:<id>` when the bodies are identical, at any age of the binding. When both raw
 * texts were hashed and differ: inside the dedupe window (`identity.window`, measured from the
 * owner's `boundAt` to `ctx.now`) the reason says `content-differs`, a warning says so, and
 * `identity.onContentDiffers: dead` holds it DEAD(PROTOCOL) instead; beyond the window (SEQN
 * counters wrap) it is a new message that takes the identity over, warned `identity-reused`. A
 * message that already holds its binding (a retry) never checks; a binding stored without a hash
 * (older than hashes) is the plain rule at any age, as is one whose bind time is unknown.
 */
export function identityVerdict(m: PreparedMessage, owners: ReadonlyMap<string, IdentityOwner>, ctx: RunContext): IdentityVerdict {
  const d = m.decoded;
  if (d === undefined || (!d.ok && d.errorClass === "MALFORMED")) return FREE;
  if (m.record.identityKey !== null || m.identityKey === null) return FREE;
  const owner = owners.get(m.identityKey);
  if (owner === undefined || owner.msgId === m.record.msgId) return FREE;
  const meta = d.ok ? d.message.meta : d.meta;
  const plain = `duplicate-of:${owner.msgId}`;
  if (owner.contentHash === null || m.contentHash === null || owner.contentHash === m.contentHash) {
    return { kind: "duplicate", decision: { event: { type: "skipped", reason: plain }, meta, bind: false } };
  }
  const window = ctx.identity.window ?? DEFAULT_IDENTITY_WINDOW_MS;
  if (owner.boundAt !== undefined && ctx.now - owner.boundAt > window) {
    return {
      kind: "reused",
      previous: owner,
      warning: {
        code: "identity-reused",
        detail: `identity ${m.identityKey} was held by message ${owner.msgId}, bound ${ctx.now - owner.boundAt} ms ago (over the dedupe window of ${window} ms), whose body differs: this message is new and now holds it`,
      },
    };
  }
  const reason = `${plain} content-differs`;
  const warned = [
    {
      code: "content-differs",
      detail: `identity ${m.identityKey} is held by message ${owner.msgId} whose body differs (sha256 ${owner.contentHash.slice(0, 12)}… vs ${m.contentHash.slice(0, 12)}…)`,
    },
  ];
  const decision: OneDecision =
    ctx.identity.onContentDiffers === "dead"
      ? { event: { type: "rejected", errorClass: "PROTOCOL", reason }, meta, bind: false, warned }
      : { event: { type: "skipped", reason }, meta, bind: false, warned };
  return { kind: "duplicate", decision };
}

/**
 * The audit row that records a message taking over an identity after the dedupe window: the new
 * message first, the one that held the identity second, so the trail answers "why was this not a
 * duplicate" after the warning's log line is gone.
 */
export function identityReusedAudit(msgId: number, previousMsgId: number, detail: string, now: number): AuditEntry {
  return { at: now, operator: PIPELINE_OPERATOR, action: "identity-reused", msgIds: [msgId, previousMsgId], detail };
}
