import type { IHeaders } from "kafkajs";

/** A consumed record's headers as strings (kafkajs hands Buffers; a repeated header: its first value). */
export function headerStrings(headers: IHeaders | undefined): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  if (headers === undefined) return out;
  for (const [name, value] of Object.entries(headers)) {
    const one = Array.isArray(value) ? value[0] : value;
    if (one !== undefined) out[name] = typeof one === "string" ? one : one.toString("utf8");
  }
  return out;
}
