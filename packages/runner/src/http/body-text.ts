/** A body msgx will not turn into text: 415 for a charset it does not read, 400 for bytes that are not that charset. */
export class BodyEncodingError extends Error {
  override readonly name = "BodyEncodingError";
  constructor(
    readonly status: 400 | 415,
    message: string,
  ) {
    super(message);
  }
}

const UTF8_LABELS = new Set(["utf-8", "utf8", "unicode-1-1-utf-8"]);

/**
 * The text of a body sent with `contentType`, exactly as sent: UTF-8 is the only charset msgx
 * reads (the mailbox stores text, and a silently transcoded or replaced byte would be a different
 * message), so a declared charset other than UTF-8 is refused with 415, and bytes that are not
 * valid UTF-8 with 400 — never replaced by U+FFFD. No charset means UTF-8. A UTF-8 byte order
 * mark is kept: it is part of what was sent.
 */
export function bodyText(bytes: Uint8Array, contentType: string | undefined): string {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? "")?.[1]?.toLowerCase();
  if (charset !== undefined && !UTF8_LABELS.has(charset)) {
    throw new BodyEncodingError(415, `charset '${charset}' is not accepted: send UTF-8 (charset=utf-8 or none)`);
  }
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new BodyEncodingError(400, `body is not valid UTF-8 (first bad byte at offset ${firstInvalidUtf8(bytes)})`);
  }
}

/** The offset of the lead byte of the first sequence that is not UTF-8 (RFC 3629's table of well-formed sequences). */
function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i]!;
    const more = lead < 0x80 ? 0 : lead >= 0xc2 && lead <= 0xdf ? 1 : lead >= 0xe0 && lead <= 0xef ? 2 : lead >= 0xf0 && lead <= 0xf4 ? 3 : -1;
    if (more < 0) return i;
    for (let k = 1; k <= more; k++) {
      const next = bytes[i + k];
      // The second byte's range is narrower after E0, ED, F0 and F4 (no overlongs, surrogates, or past U+10FFFF).
      const low = k === 1 && lead === 0xe0 ? 0xa0 : k === 1 && lead === 0xf0 ? 0x90 : 0x80;
      const high = k === 1 && lead === 0xed ? 0x9f : k === 1 && lead === 0xf4 ? 0x8f : 0xbf;
      if (next === undefined || next < low || next > high) return i;
    }
    i += more + 1;
  }
  return bytes.length;
}
