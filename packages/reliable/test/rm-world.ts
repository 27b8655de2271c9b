import { MsgDispatcher } from "@msgx/core";
import { CheckBackJob } from "../src/check-back-job.js";
import { InMemoryReliableMessageStore } from "../src/in-memory-reliable-message-store.js";
import { reliableMessageDlqTarget, reliableMessageDlqTopics, reliableMessageTarget, reliableMessageTopics } from "../src/message-envelope.js";
import { RecoveryJob } from "../src/recovery-job.js";
import type { ReliableMessageOptionsInput } from "../src/reliable-message-options.js";
import { ReliableMessageService } from "../src/reliable-message-service.js";
import { InMemoryBroker } from "@msgx/core/fakes";
import { InMemoryOutboxStore } from "@msgx/core/fakes";
import { InMemoryPipelineStore } from "@msgx/core/fakes";
import { ManualClock } from "@msgx/core/fakes";
import { RecordingLogger } from "@msgx/core/fakes";

export { RecordingLogger };

/** The service, its jobs and the relay over the fakes: one database, one broker, one dispatcher per queue and per dead-letter queue. */
export class RmWorld {
  readonly clock = new ManualClock();
  readonly db = new InMemoryPipelineStore(this.clock);
  readonly store = new InMemoryReliableMessageStore(this.clock, this.db);
  readonly outbox = new InMemoryOutboxStore(this.db);
  readonly broker = new InMemoryBroker();
  readonly logger = new RecordingLogger();
  readonly service: ReliableMessageService;
  readonly checkBack: CheckBackJob;
  readonly recovery: RecoveryJob;
  readonly dispatchers: ReadonlyMap<string, MsgDispatcher>;
  readonly dlqDispatchers: ReadonlyMap<string, MsgDispatcher>;

  constructor(
    readonly queues: readonly string[] = ["accounting"],
    options: ReliableMessageOptionsInput = {},
    jobBatch = 100,
  ) {
    const { store, clock, logger } = this;
    this.service = new ReliableMessageService({ store, clock, logger, options });
    this.checkBack = new CheckBackJob({ service: this.service, store, clock, logger }, { batchSize: jobBatch });
    this.recovery = new RecoveryJob({ service: this.service, store, sends: this.outbox, clock, logger }, { batchSize: jobBatch });
    this.dispatchers = new Map(queues.map((q) => [q, this.newDispatcher(q)]));
    this.dlqDispatchers = new Map(
      queues.map((q) => [
        q,
        new MsgDispatcher(
          { outbox: this.outbox, delivery: this.broker, clock: this.clock, logger: this.logger },
          { target: reliableMessageDlqTarget(q), topics: reliableMessageDlqTopics([q]) },
        ),
      ]),
    );
  }

  newDispatcher(queue: string): MsgDispatcher {
    return new MsgDispatcher(
      { outbox: this.outbox, delivery: this.broker, clock: this.clock, logger: this.logger },
      { target: reliableMessageTarget(queue), topics: reliableMessageTopics([queue]) },
    );
  }

  /** Runs every dispatcher (dead-letter ones included) until none has a due event left. */
  async deliverAll(): Promise<void> {
    for (const d of [...this.dispatchers.values(), ...this.dlqDispatchers.values()]) {
      for (let i = 0; i < 1_000; i++) {
        const step = await d.step();
        if (step.did !== "sent") break;
      }
    }
  }

  /** The JSON values on a queue's dead-letter topic, in offset order. */
  deadLetters(queue: string): unknown[] {
    return this.broker.records(`rmq-dlq.${queue}`).map((r) => (r.value === null ? null : JSON.parse(r.value)));
  }

  /** The JSON values on a queue's topic, in offset order. */
  values(queue: string): unknown[] {
    return this.broker.records(`rmq.${queue}`).map((r) => (r.value === null ? null : JSON.parse(r.value)));
  }
}
