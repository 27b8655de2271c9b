import { errorMessage, type Logger } from "@msgx/core";

/** What `buildParts` opened, to be closed again: by the parts' `close`, or when a later part fails to open. */
export class PartClosers {
  readonly #closers: (() => Promise<void> | void)[] = [];
  readonly #logger: Logger;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  add(close: () => Promise<void> | void): void {
    this.#closers.push(close);
  }

  /** Closes newest first (a part may use one opened before it); a close that fails is logged, the others still run. */
  async closeAll(): Promise<void> {
    for (const close of [...this.#closers].reverse()) {
      try {
        await close();
      } catch (e) {
        this.#logger.warn("close failed", { error: errorMessage(e) });
      }
    }
  }
}
