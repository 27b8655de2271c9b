import type { DecodeResult } from "../codec/decode-result.js";
import { sha256Hex, type ContentHash } from "../model/content-hash.js";
import { Identity, type IdentityOptions } from "../model/identity.js";
import type { MsgKind } from "../model/msg-kind.js";
import type { ProcRecord } from "../model/proc-record.js";
import type { RawRead } from "../ports/mailbox.js";
import { processorFor, type ProcessorTable } from "./processor.js";

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
