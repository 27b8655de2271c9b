/**
 * The JSON texts of payload objects already serialized. A payload is immutable once decided, and
 * one payload object is serialized several times on its way out: its record's size is checked in
 * the decision, and a flight change's two events (change stream and schd) share one payload.
 */
const texts = new WeakMap<object, string | undefined>();

/**
 * `JSON.stringify(payload)`, made once per payload object (a primitive is serialized each time).
 * Throws what `JSON.stringify` throws (a cycle, a BigInt), and is undefined where it is.
 */
export function payloadJson(payload: unknown): string | undefined {
  if (typeof payload !== "object" || payload === null) return JSON.stringify(payload) as string | undefined;
  if (texts.has(payload)) return texts.get(payload);
  const text = JSON.stringify(payload) as string | undefined;
  texts.set(payload, text);
  return text;
}
