/**
 * The raw texts this process appended and the pump has not read yet, bounded by size: `readRaw`
 * answers from here instead of reading a text back that it just sent (one MariaDB round trip
 * fewer per pump step for the HTTP ingress; docs/mailbox.md "Reading what the ingress appended").
 *
 * A text is served once: the pump reads a message's text once per attempt, and a later attempt
 * (a retry, a replay) reads the row again. When the texts held pass `maxChars`, the oldest go
 * first; a text longer than `maxChars` is never held. Both only cost a read from the mailbox.
 */
export class AppendedTexts {
  readonly #maxChars: number;
  readonly #texts = new Map<number, string>();
  #chars = 0;

  /** `maxChars` 0 holds nothing. */
  constructor(maxChars: number) {
    this.#maxChars = maxChars;
  }

  /** Holds the text of a row whose insert committed. */
  remember(msgId: number, text: string): void {
    if (this.#maxChars === 0 || text.length > this.#maxChars) return;
    this.#drop(msgId);
    this.#texts.set(msgId, text);
    this.#chars += text.length;
    // Map iteration is insertion order: the first key is the oldest text.
    for (const oldest of this.#texts.keys()) {
      if (this.#chars <= this.#maxChars) break;
      this.#drop(oldest);
    }
  }

  /** The held text of `msgId`, forgotten as it is handed out; undefined when none is held. */
  take(msgId: number): string | undefined {
    const text = this.#texts.get(msgId);
    this.#drop(msgId);
    return text;
  }

  /** How many texts are held (for tests and metrics). */
  get size(): number {
    return this.#texts.size;
  }

  #drop(msgId: number): void {
    const text = this.#texts.get(msgId);
    if (text === undefined) return;
    this.#texts.delete(msgId);
    this.#chars -= text.length;
  }
}
