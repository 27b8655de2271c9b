import type { DecodeResult } from "../codec/decode-result.js";
import type { FlightState } from "../model/flight-state.js";
import { sha256Hex, type ContentHash } from "../model/content-hash.js";
import { Identity, type IdentityOptions } from "../model/identity.js";
import type { Meta } from "../model/meta.js";
import type { MsgKind } from "../model/msg-kind.js";
import { isTerminal, type ProcRecord } from "../model/proc-record.js";
import type { OutboxEventDraft } from "../outbox/outbox-event.js";
import { firstOversized } from "../outbox/record-size.js";
import type { BackfillEntry, RawRead } from "../ports/mailbox.js";
import { errorMessage } from "../errors/msgx-error.js";
import { evolveProc, type ProcEvent } from "./proc-machine.js";
import type { MessageWarning, Processor, ProcessorResult, ProcessorTable } from "./processor.js";
import { DEFAULT_UNSUPPORTED_POLICY, type RetryPolicy, type UnsupportedPolicy } from "../runtime/retry-policy.js";
import type { AuditEntry } from "./run-decision.js";
import type { IdentityBinding, IdentityOwner, RequestClose, RunDecision, RunWarning, SnapshotLogEntry } from "./run-decision.js";
import type { OpenRequest } from "../requests/open-request.js";
import { refKey, type RefChange, type RefState } from "../requests/reference-entry.js";
import { RunReferences, type ReferenceView } from "../requests/reference-view.js";
import { evolveRequest } from "../requests/request-machine.js";
import { toOpenRequest, type RequestRecord } from "../requests/request-record.js";
import type { ReplyMatch } from "../requests/reply-match.js";

/** A message of a run, read and decoded, before any state was consulted. */
export interface PreparedMessage {
  readonly record: ProcRecord;
  /** Undefined when the raw row was missing. */
  readonly decoded: DecodeResult | undefined;
  /** The identity this message would bind (null when its envelope did not decode). */
  readonly identityKey: string | null;
  /** SHA-256 (hex) of the raw text, stored with the binding; null when not computed (raw missing). */
  readonly contentHash: string | null;
}

/** A run ready to be decided, with the keys of the state it needs. */
export interface PreparedRun {
  readonly messages: readonly PreparedMessage[];
  /** Identities to look up (those not yet bound by their own message). */
  readonly identityKeys: readonly string[];
  readonly flightIds: readonly string[];
  /** True when a message of the run may answer an upstream request (a RESP): load the open ones. */
  readonly needsRequests?: boolean;
  /** The types of the run's reference messages: load every stored row of them (`PipelineTx.loadReferences`). */
  readonly referenceTypes?: readonly string[];
}

/** The state a run is decided against, loaded in one query per kind. */
export interface LoadedState {
  readonly identityOwners: ReadonlyMap<string, IdentityOwner>;
  readonly flights: ReadonlyMap<string, FlightState>;
  /**
   * The open upstream requests (`PipelineTx.openRequests`): replies are matched against them, and
   * a matched one is closed (DONE) in the decision.
   */
  readonly requests?: readonly RequestRecord[];
  /** Views to match against when no `requests` are given (processor tests); nothing is closed. */
  readonly openRequests?: readonly OpenRequest[];
  /** The stored reference rows of `PreparedRun.referenceTypes`, tombstones included. */
  readonly references?: readonly RefState[];
}

export interface RunContext {
  readonly now: number;
  readonly policy: RetryPolicy;
  readonly identity: IdentityOptions;
  readonly processors: ProcessorTable;
  /** The budget (or `skip` mode) of UNSUPPORTED messages. Default {@link DEFAULT_UNSUPPORTED_POLICY}. */
  readonly unsupported?: UnsupportedPolicy;
  /**
   * The broker's record limit in bytes: a message any of whose events would be a larger record
   * (`encodedRecordBytes`) ends DEAD(PROTOCOL) with nothing written. Undefined or 0: unchecked.
   */
  readonly maxRecordBytes?: number;
}

/** The operator named on the audit rows the pipeline appends by itself. */
export const PIPELINE_OPERATOR = "msgx";

/**
 * Pure: decodes (and hashes) every message of a run and lists the state keys it needs. The
 * decoder is passed in so the run does not depend on codec options.
 */
export function prepareRun(
  records: readonly ProcRecord[],
  raws: ReadonlyMap<number, RawRead>,
  decode: (raw: string) => DecodeResult,
  processors: ProcessorTable,
  identity: IdentityOptions,
  hash: ContentHash = sha256Hex,
): PreparedRun {
  const decoded = new Map<number, DecodeResult>();
  const hashes = new Map<number, string>();
  for (const record of records) {
    const raw = raws.get(record.msgId);
    if (!raw?.found) continue;
    decoded.set(record.msgId, decode(raw.text));
    if (record.identityKey === null) hashes.set(record.msgId, hash(raw.text));
  }
  return prepareDecodedRun(records, decoded, processors, identity, hashes);
}

/**
 * Pure: {@link prepareRun} for messages decoded beforehand (the pump decodes a large document in
 * slices, letting other work run). `decoded` holds a result for every message whose raw row was
 * found; a message without one is a missing row. `contentHashes` holds the raw text's SHA-256 of
 * the messages not bound yet (one without a hash gets the plain duplicate rule).
 */
export function prepareDecodedRun(
  records: readonly ProcRecord[],
  decodedById: ReadonlyMap<number, DecodeResult>,
  processors: ProcessorTable,
  identity: IdentityOptions,
  contentHashes: ReadonlyMap<number, string> = new Map(),
): PreparedRun {
  const identityKeys = new Set<string>();
  const flightIds = new Set<string>();
  const referenceTypes = new Set<string>();
  let needsRequests = false;
  const messages = records.map((record): PreparedMessage => {
    const decoded = decodedById.get(record.msgId);
    const meta = decoded?.ok ? decoded.message.meta : (decoded?.meta ?? null);
    const contentHash = contentHashes.get(record.msgId) ?? null;
    const identityKey = record.identityKey ?? (meta ? Identity.of(meta, identity, contentHash) : null);
    if (identityKey !== null && record.identityKey === null) identityKeys.add(identityKey);
    if (decoded?.ok) {
      needsRequests ||= mayAnswerRequest(decoded.message.body);
      if (decoded.message.body.kind === "reference") referenceTypes.add(decoded.message.body.rtype);
      for (const flid of processorFor(processors, decoded.message.body)?.flightsOf(decoded.message.body) ?? []) {
        flightIds.add(flid);
      }
    }
    return { record, decoded, identityKey, contentHash };
  });
  return { messages, identityKeys: [...identityKeys], flightIds: [...flightIds], needsRequests, ...(referenceTypes.size > 0 ? { referenceTypes: [...referenceTypes] } : {}) };
}

/** A reply to an upstream request: `SCHD/RESP` or a reference RESP. */
const mayAnswerRequest = (body: MsgKind): boolean => (body.kind === "snapshot" || body.kind === "reference") && body.styp === "RESP";

function processorFor(table: ProcessorTable, body: MsgKind): Processor | undefined {
  return table[body.kind] as Processor | undefined;
}

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
    const one = duplicateOf(m, owners, ctx) ?? decideOne(m, owners, flights, open, referenceView, ctx);
    const { event, meta, bind, applied, answered, warned } = unsupported.mode === "skip" ? unsupportedSkipped(one) : one;
    for (const w of warned ?? []) warnings.push({ msgId: m.record.msgId, ...w });
    const record = evolveProc(m.record, event, { now: ctx.now, identityKey: bind ? m.identityKey : m.record.identityKey, meta }, ctx.policy, unsupported);
    records.push(record);
    if (bind && m.identityKey !== null && m.record.identityKey === null) {
      owners.set(m.identityKey, { msgId: m.record.msgId, contentHash: m.contentHash });
      bindings.push({ identityKey: m.identityKey, msgId: m.record.msgId, contentHash: m.contentHash });
    }
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

/**
 * The duplicate check (SPEC §2.2, WIRE.md "SEQN and identity"), before anything else a decoded
 * envelope can lead to: a message whose identity another message holds is SKIPPED
 * `duplicate-of:<id>` whatever its body. When both raw texts were hashed and differ, the reason
 * says `content-differs`, a warning says so, and `identity.onContentDiffers: dead` holds it
 * DEAD(PROTOCOL) instead. A message that already holds its binding (a retry) never checks; a
 * binding stored without a hash (older than hashes) is the plain rule.
 */
function duplicateOf(m: PreparedMessage, owners: ReadonlyMap<string, IdentityOwner>, ctx: RunContext): OneDecision | undefined {
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

/** `unsupported: skip` mode: an UNSUPPORTED failure ends SKIPPED `unsupported:<TYPE>/<STYP>` at once. */
function unsupportedSkipped(one: OneDecision): OneDecision {
  if (one.event.type !== "failed" || one.event.errorClass !== "UNSUPPORTED") return one;
  const reason = one.meta === null ? one.event.reason : `unsupported:${one.meta.type}/${one.meta.styp}`;
  return { ...one, event: { type: "skipped", reason } };
}

/** The audit row of an UNSUPPORTED message that ended (skipped, or exhausted on its last attempt). */
function unsupportedAudit(event: ProcEvent, record: ProcRecord, now: number): AuditEntry | undefined {
  if (event.type === "skipped" && event.reason.startsWith("unsupported:")) {
    return { at: now, operator: PIPELINE_OPERATOR, action: "unsupported-skipped", msgIds: [record.msgId], detail: event.reason };
  }
  if (event.type === "failed" && event.errorClass === "UNSUPPORTED" && record.status === "DEAD") {
    return { at: now, operator: PIPELINE_OPERATOR, action: "unsupported-exhausted", msgIds: [record.msgId], detail: record.reason ?? event.reason };
  }
  return undefined;
}

/** The `SCHD_SNAP_LOG` row of a snapshot message (`SCHD/DNLD|RESP`) as decided; undefined for any other. */
function snapshotLogEntry(m: PreparedMessage, record: ProcRecord, flights: ReadonlyMap<string, FlightState>): SnapshotLogEntry | undefined {
  const body = m.decoded?.ok ? m.decoded.message.body : undefined;
  if (body?.kind !== "snapshot") return undefined;
  const first = body.body.flights[0];
  return {
    msgId: record.msgId,
    styp: body.styp,
    operationDay: (first === undefined ? undefined : flights.get(first.flid)?.operationDay) ?? null,
    declaredRecs: body.body.recs ?? null,
    flights: body.body.flights.length,
    outcome: record.status,
    reason: record.reason,
  };
}

interface OneDecision {
  readonly event: ProcEvent;
  readonly meta: Meta | null;
  /** Whether this message's identity binds (every outcome after the duplicate check). */
  readonly bind: boolean;
  readonly applied?: Extract<ProcessorResult, { type: "applied" }>;
  /** The open request this message answered (it ended SUCCEEDED or SKIPPED). */
  readonly answered?: ReplyMatch;
  readonly warned?: readonly MessageWarning[];
}

function decideOne(
  m: PreparedMessage,
  owners: ReadonlyMap<string, IdentityOwner>,
  flights: ReadonlyMap<string, FlightState>,
  openRequests: readonly OpenRequest[],
  references: ReferenceView,
  ctx: RunContext,
): OneDecision {
  const d = m.decoded;
  if (d === undefined) return { event: { type: "rejected", errorClass: "MALFORMED", reason: "raw-missing" }, meta: null, bind: false };
  const meta = d.ok ? d.message.meta : d.meta;
  if (!d.ok && d.errorClass === "MALFORMED") {
    return { event: { type: "rejected", errorClass: "MALFORMED", reason: d.reason }, meta, bind: false };
  }
  if (!d.ok) {
    return d.errorClass === "PROTOCOL"
      ? { event: { type: "rejected", errorClass: "PROTOCOL", reason: d.reason }, meta, bind: true }
      : { event: { type: "failed", errorClass: "CODEC_ERROR", reason: d.reason }, meta, bind: true };
  }
  const body = d.message.body;
  if (body.kind === "ignorable") {
    return { event: { type: "skipped", reason: `ignored:${body.styp === undefined ? body.type : `${body.type}/${body.styp}`}` }, meta, bind: true };
  }
  if (body.kind === "unsupported") {
    return { event: { type: "failed", errorClass: "UNSUPPORTED", reason: `unsupported:${body.type}/${body.styp}` }, meta, bind: true };
  }
  const processor = processorFor(ctx.processors, body);
  if (processor === undefined) {
    return { event: { type: "failed", errorClass: "UNSUPPORTED", reason: `unsupported:${d.message.meta.type}/${d.message.meta.styp}: no processor for ${body.kind}` }, meta, bind: true };
  }
  let result: ProcessorResult;
  try {
    result = processor.apply(body, { msgId: m.record.msgId, meta: d.message.meta, now: ctx.now, flights, openRequests, references });
  } catch (e) {
    // A processor bug is a fault of this message's processing: retried, then EXHAUSTED.
    return { event: { type: "failed", errorClass: "INFRA", reason: `processor error: ${errorMessage(e)}` }, meta, bind: true };
  }
  switch (result.type) {
    case "applied": {
      const unpublishable = oversizeReason(result.events, ctx.maxRecordBytes);
      if (unpublishable !== undefined) return { event: { type: "rejected", errorClass: "PROTOCOL", reason: unpublishable }, meta, bind: true };
      return {
        event: { type: "succeeded", ...(result.reason ? { reason: result.reason } : {}) },
        meta,
        bind: true,
        applied: result,
        ...(result.answered ? { answered: result.answered } : {}),
        ...(result.warnings ? { warned: result.warnings } : {}),
      };
    }
    case "skipped":
      return {
        event: { type: "skipped", reason: result.reason },
        meta,
        bind: true,
        ...(result.answered ? { answered: result.answered } : {}),
        ...(result.warnings ? { warned: result.warnings } : {}),
      };
    case "rejected":
      return { event: { type: "rejected", errorClass: "PROTOCOL", reason: result.reason }, meta, bind: true };
    case "failed":
      return { event: { type: "failed", errorClass: result.errorClass, reason: result.reason }, meta, bind: true };
  }
}

/**
 * Why a message cannot be accepted when one of its events could never be published: the broker
 * would refuse the record for its size (MESSAGE_TOO_LARGE) on every attempt, and Kafka would
 * stop following the flight's state. Checked before anything of the message is applied.
 */
function oversizeReason(events: readonly OutboxEventDraft[], limit: number | undefined): string | undefined {
  if (limit === undefined || limit <= 0) return undefined;
  const over = firstOversized(events, limit);
  if (over === undefined) return undefined;
  const key = over.event.partitionKey.length > 40 ? `${over.event.partitionKey.slice(0, 40)}…` : over.event.partitionKey;
  return `unpublishable: event ${over.event.target} key ${key} would be ${over.bytes} bytes, over the broker limit of ${limit} bytes`;
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
