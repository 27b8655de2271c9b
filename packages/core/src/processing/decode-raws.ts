import type { DecodeResult } from "../codec/decode-result.js";
import type { ContentHash } from "../model/content-hash.js";
import type { ProcRecord } from "../model/proc-record.js";
import type { RawRead } from "../ports/mailbox.js";

/** The decoded messages of a run and the content hashes of those that will bind an identity. */
export interface DecodedRaws {
  /** A result for every message whose raw row was found (`prepareDecodedRun`'s input). */
  readonly decoded: ReadonlyMap<number, DecodeResult>;
  /** SHA-256 (hex) of the raw text of each message that is not bound yet and whose envelope decoded. */
  readonly hashes: ReadonlyMap<number, string>;
}

/**
 * Decodes the raw text of each record, one at a time and in order (a decoder may yield between
 * slices of a large document), and hashes the text of the messages that will bind an identity:
 * only a message whose envelope decoded binds one, and one holding its binding already (a retry,
 * a replay) keeps the hash stored with it. The pump and the replay preflight read messages this way.
 */
export async function decodeRaws(
  records: readonly ProcRecord[],
  raws: ReadonlyMap<number, RawRead>,
  decode: (raw: string) => DecodeResult | Promise<DecodeResult>,
  hash: ContentHash,
): Promise<DecodedRaws> {
  const decoded = new Map<number, DecodeResult>();
  const hashes = new Map<number, string>();
  for (const record of records) {
    const raw = raws.get(record.msgId);
    if (!raw?.found) continue;
    const result = await decode(raw.text);
    decoded.set(record.msgId, result);
    const meta = result.ok ? result.message.meta : result.meta;
    if (record.identityKey === null && meta !== null) hashes.set(record.msgId, hash(raw.text));
  }
  return { decoded, hashes };
}
