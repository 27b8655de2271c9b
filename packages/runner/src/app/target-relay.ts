import { errorMessage, MsgDispatcher } from "@msgx/core";
import type { StepContext } from "./step-context.js";

/** Rows one target may send per relay round before the next target's turn. */
export const DRAIN_PER_ROUND = 100;

/** One outbox target with pending rows, where it goes, and the topics to create before its first send. */
export interface RelayTarget {
  readonly target: string;
  readonly topic: string;
  readonly create: readonly string[];
  /** Log fields naming what the target is for (`{ queue }`, `{ owner }`). */
  readonly about: Readonly<Record<string, string>>;
}

export interface TargetRelayOptions {
  /** Create `create` topics before a target's first send (JSONL delivery has none to create). */
  readonly createTopics: boolean;
  /** Logged once (warn) while a target's topics cannot be created: its rows wait in the outbox. */
  readonly unready: string;
  /** Logged (info) when they could be created after all. */
  readonly ready: string;
}

/**
 * The relay of targets discovered at run time (reliable-message queues, task owners): one
 * `MsgDispatcher` per target, so a stuck target blocks only itself, each created after its topics
 * were (`QueueTopics`), and drained up to {@link DRAIN_PER_ROUND} rows per call.
 */
export class TargetRelay {
  readonly #ctx: StepContext;
  readonly #options: TargetRelayOptions;
  readonly #dispatchers = new Map<string, MsgDispatcher>();
  /** Targets whose topics could not be created yet: warned once until they can. */
  readonly #unready = new Set<string>();

  constructor(ctx: StepContext, options: TargetRelayOptions) {
    this.#ctx = ctx;
    this.#options = options;
  }

  /** Sends what `t` has due now; a target in backoff, in an outage or without its topics waits for the next call. */
  async drain(t: RelayTarget, signal: AbortSignal): Promise<void> {
    const d = await this.#dispatcherOf(t);
    if (!d) return;
    for (let i = 0; i < DRAIN_PER_ROUND; i++) if ((await d.step(signal)).did !== "sent") break;
  }

  async #dispatcherOf(t: RelayTarget): Promise<MsgDispatcher | undefined> {
    const known = this.#dispatchers.get(t.target);
    if (known) return known;
    const { parts, clock, logger } = this.#ctx;
    if (parts.queueTopics && this.#options.createTopics) {
      try {
        await parts.queueTopics.ensure(t.create);
      } catch (e) {
        if (!this.#unready.has(t.target)) logger.warn(this.#options.unready, { ...t.about, error: errorMessage(e) });
        this.#unready.add(t.target);
        return undefined;
      }
      if (this.#unready.delete(t.target)) logger.info(this.#options.ready, t.about);
    }
    const d = new MsgDispatcher({ outbox: parts.outbox, delivery: parts.delivery, clock, logger }, { target: t.target, topics: { [t.target]: t.topic } });
    this.#dispatchers.set(t.target, d);
    return d;
  }
}
