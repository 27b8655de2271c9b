import { errorMessage, silentLogger, type Logger } from "@msgx/core";

/**
 * Drives a `step` function: calls it again at the instant it returns (epoch ms), or after
 * `idleMs` when it returns null, or at once after `wake()`. A step that throws is logged and
 * retried after `errorMs`. `stop()` ends the loop after the step in progress.
 */
export class Loop {
  readonly #abort = new AbortController();
  #wake: (() => void) | undefined;
  #woken = false;
  #done: Promise<void> = Promise.resolve();

  constructor(
    readonly name: string,
    private readonly step: (signal: AbortSignal) => Promise<number | null>,
    private readonly options: { readonly idleMs: number; readonly errorMs?: number; readonly logger?: Logger },
  ) {}

  start(): this {
    this.#done = this.#run();
    return this;
  }

  wake(): void {
    this.#woken = true;
    this.#wake?.();
  }

  async stop(): Promise<void> {
    this.#abort.abort(new Error(`${this.name} stopping`));
    this.#wake?.();
    await this.#done;
  }

  async #run(): Promise<void> {
    const signal = this.#abort.signal;
    const logger = this.options.logger ?? silentLogger;
    while (!signal.aborted) {
      let next: number | null;
      this.#woken = false;
      try {
        next = await this.step(signal);
      } catch (e) {
        if (signal.aborted) break;
        logger.warn(`${this.name}: step failed`, { error: errorMessage(e) });
        next = Date.now() + (this.options.errorMs ?? 1_000);
      }
      if (this.#woken) continue;
      const wait = next === null ? this.options.idleMs : Math.min(this.options.idleMs, Math.max(0, next - Date.now()));
      if (wait > 0) await this.#sleep(wait);
    }
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.#wake = () => {
        this.#wake = undefined;
        done();
      };
    });
  }
}
