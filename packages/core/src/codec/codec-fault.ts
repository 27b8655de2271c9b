/**
 * Why a well-formed message with a valid envelope is refused. Thrown inside the body decoders and
 * turned into a `DecodeResult` (with the META) by `decodeMessage`; it never leaves the codec.
 * - `PROTOCOL`: the upstream contract forbids the payload (missing body, a value outside its
 *   domain, a duplicate key).
 * - `CODEC_ERROR`: a shape the contract does not forbid but this decoder cannot represent
 *   (e.g. a scalar element holding elements); replayable once the decoder learns it.
 */
export class CodecFault extends Error {
  override readonly name = "CodecFault";

  constructor(
    readonly errorClass: "PROTOCOL" | "CODEC_ERROR",
    reason: string,
  ) {
    super(reason);
  }
}

export const protocolFault = (reason: string): CodecFault => new CodecFault("PROTOCOL", reason);
export const codecFault = (reason: string): CodecFault => new CodecFault("CODEC_ERROR", reason);

/** Quotes wire text for a reason, shortened: reasons are stored and logged, payloads can be huge. */
export function quote(text: string): string {
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
}
