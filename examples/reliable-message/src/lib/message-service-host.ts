import { MsgDispatcher, silentLogger, systemClock, type Clock, type Logger } from "@msgx/core";
import { PgOutboxStore } from "@msgx/adapters-pg";
import { KafkaDeliveryPort } from "@msgx/adapters-kafka";
import type { Kysely } from "kysely";
import {
  CheckBackJob,
  PgReliableMessageStore,
  RecoveryJob,
  ReliableMessageService,
  reliableMessageTarget,
  reliableMessageTopics,
  type ReliableMessageChecker,
  type ReliableMessageOptions,
} from "./core.js";
import { runLoop } from "./loop.js";

export interface MessageServiceHostOptions {
  readonly db: Kysely<any>;
  readonly brokers: readonly string[];
  readonly queues: readonly string[];
  readonly topicPrefix?: string;
  readonly options?: Partial<ReliableMessageOptions>;
  /** How often the check-back and recovery jobs run when idle. Default 1 s. */
  readonly jobIntervalMs?: number;
  /** How often an idle dispatcher looks for new sends. Default 100 ms. */
  readonly pollMs?: number;
  readonly clock?: Clock;
  readonly logger?: Logger;
}

/**
 * The reliable-message service as one process (seed: the message service, "消息状态确认子系统"
 * and "消息恢复子系统"): the service API over PostgreSQL, the check-back and recovery jobs, and
 * one outbox relay per queue delivering `msg_event` rows to Kafka.
 */
export class MessageServiceHost {
  readonly service: ReliableMessageService;
  readonly store: PgReliableMessageStore;
  readonly checkBack: CheckBackJob;
  readonly recovery: RecoveryJob;
  readonly delivery: KafkaDeliveryPort;
  readonly #dispatchers: readonly MsgDispatcher[];
  readonly #options: MessageServiceHostOptions;
  readonly #logger: Logger;
  /** What the loops did so far (for the demo's summary and the integration test). */
  readonly stats = { checkBackConfirmed: 0, checkBackDeleted: 0, checkBackDeferred: 0, resent: 0, dead: 0, relayed: 0 };
  readonly #abort = new AbortController();
  #loops: Promise<void>[] = [];

  constructor(options: MessageServiceHostOptions) {
    this.#options = options;
    const clock = options.clock ?? systemClock;
    const logger = (this.#logger = options.logger ?? silentLogger);
    this.store = new PgReliableMessageStore(options.db, { clock });
    this.service = new ReliableMessageService({ store: this.store, clock, logger, ...(options.options ? { options: options.options } : {}) });
    this.checkBack = new CheckBackJob({ service: this.service, store: this.store, clock, logger });
    const outbox = new PgOutboxStore(options.db);
    this.recovery = new RecoveryJob({ service: this.service, store: this.store, sends: outbox, clock, logger });
    this.delivery = new KafkaDeliveryPort({ brokers: options.brokers, clientId: "msgx-reliable-message", logger, sendTimeoutMs: 10_000 });
    const topics = reliableMessageTopics(options.queues, options.topicPrefix);
    this.#dispatchers = options.queues.map(
      (q) => new MsgDispatcher({ outbox, delivery: this.delivery, clock, logger }, { target: reliableMessageTarget(q), topics }),
    );
  }

  /** Registers the producer's checker of a queue (one per queue). */
  registerChecker(queue: string, checker: ReliableMessageChecker): void {
    this.checkBack.registerChecker(queue, checker);
  }

  start(): void {
    const { signal } = this.#abort;
    const clock = this.#options.clock ?? systemClock;
    const jobMs = this.#options.jobIntervalMs ?? 1_000;
    const pollMs = this.#options.pollMs ?? 100;
    this.#loops = [
      runLoop(
        "check-back",
        async () => {
          const s = await this.checkBack.step(signal);
          this.stats.checkBackConfirmed += s.confirmed;
          this.stats.checkBackDeleted += s.deleted;
          this.stats.checkBackDeferred += s.deferred;
          return s.more ? 0 : jobMs;
        },
        signal,
        this.#logger,
      ),
      runLoop(
        "recovery",
        async () => {
          const s = await this.recovery.step(signal);
          this.stats.resent += s.resent;
          this.stats.dead += s.dead;
          return s.more ? 0 : jobMs;
        },
        signal,
        this.#logger,
      ),
      ...this.#dispatchers.map((d, i) =>
        runLoop(
          `relay ${this.#options.queues[i]}`,
          async () => {
            const s = await d.step(signal);
            if (s.did === "sent") this.stats.relayed += s.eventIds.length;
            if (s.did === "sent" || s.did === "dead") return 0;
            if (s.next === null) return pollMs;
            return Math.max(0, Math.min(s.next - clock.now(), 5_000));
          },
          signal,
          this.#logger,
        ),
      ),
    ];
  }

  async stop(): Promise<void> {
    this.#abort.abort();
    await Promise.allSettled(this.#loops);
    await this.delivery.disconnect();
  }
}
