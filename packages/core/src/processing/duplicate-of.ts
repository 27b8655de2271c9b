import type { IdentityOwner } from "./run-decision.js";
import type { OneDecision } from "./decide-one.js";
import type { PreparedMessage } from "./prepare-run.js";
import type { RunContext } from "./run-context.js";

/**
 * The duplicate check (SPEC §2.2, WIRE.md "SEQN and identity"), before anything else a decoded
 * envelope can lead to: a message whose identity another message holds is SKIPPED
 * `duplicate-of:<id>` whatever its body. When both raw texts were hashed and differ, the reason
 * says `content-differs`, a warning says so, and `identity.onContentDiffers: dead` holds it
 * DEAD(PROTOCOL) instead. A message that already holds its binding (a retry) never checks; a
 * binding stored without a hash (older than hashes) is the plain rule.
 */
export function duplicateOf(m: PreparedMessage, owners: ReadonlyMap<string, IdentityOwner>, ctx: RunContext): OneDecision | undefined {
  const d = m.decoded;
  if (d === undefined || (!d.ok && d.errorClass === "MALFORMED")) return undefined;
  if (m.record.identityKey !== null || m.identityKey === null) return undefined;
  const owner = owners.get(m.identityKey);
  if (owner === undefined || owner.msgId === m.record.msgId) return undefined;
  const meta = d.ok ? d.message.meta : d.meta;
  const plain = `duplicate-of:${owner.msgId}`;
  if (owner.contentHash === null || m.contentHash === null || owner.contentHash === m.contentHash) {
    return { event: { type: "skipped", reason: plain }, meta, bind: false };
  }
  const reason = `${plain} content-differs`;
  const warned = [
    {
      code: "content-differs",
      detail: `identity ${m.identityKey} is held by message ${owner.msgId} whose body differs (sha256 ${owner.contentHash.slice(0, 12)}… vs ${m.contentHash.slice(0, 12)}…)`,
    },
  ];
  return ctx.identity.onContentDiffers === "dead"
    ? { event: { type: "rejected", errorClass: "PROTOCOL", reason }, meta, bind: false, warned }
    : { event: { type: "skipped", reason }, meta, bind: false, warned };
}
