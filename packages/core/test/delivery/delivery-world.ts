import { EventType, Target, type OutboxEventDraft } from "../../src/outbox/outbox-event.js";
import type { DeliveryRecord } from "../../src/ports/delivery-port.js";
import { silentLogger } from "../../src/runtime/logger.js";
import { SimulatedCrashMarker } from "../../src/runtime/simulated-crash.js";
import type { DeliveryDeps, DeliveryFailpoint } from "../../src/delivery/delivery-deps.js";
import { EventHeader, readEventId } from "../../src/outbox/event-headers.js";
import { MsgDispatcher, type MsgDispatcherOptions } from "../../src/delivery/msg-dispatcher.js";
import { SchdFlusher, type SchdFlusherOptions } from "../../src/delivery/schd-flusher.js";
import { InMemoryBroker, type BrokerRecord } from "../../src/ports/in-memory-broker.js";
import { InMemoryOutboxStore } from "../../src/delivery/in-memory-outbox-store.js";
import { InMemoryPipelineStore } from "../../src/processing/in-memory-pipeline-store.js";
import { ManualClock } from "../../src/runtime/manual-clock.js";

/** The fakes the delivery drivers run over, plus a restartable dispatcher and flusher. */
export class DeliveryWorld {
  readonly clock = new ManualClock();
  readonly store = new InMemoryPipelineStore(this.clock);
  readonly outbox = new InMemoryOutboxStore(this.store);
  readonly broker = new InMemoryBroker();
  /** Set to a failpoint name to crash there once. */
  crashAt: DeliveryFailpoint | null = null;
  dispatcher!: MsgDispatcher;
  flusher!: SchdFlusher;

  constructor(
    public msgOptions: Partial<MsgDispatcherOptions> = {},
    readonly schdOptions: Partial<SchdFlusherOptions> = {},
  ) {
    this.restart();
  }

  get deps(): DeliveryDeps {
    return {
      outbox: this.outbox,
      delivery: this.broker,
      clock: this.clock,
      logger: silentLogger,
      failpoint: (name) => {
        if (this.crashAt === name) {
          this.crashAt = null;
          throw new SimulatedCrashMarker(name);
        }
      },
      ...(this.pause ? { pause: this.pause } : {}),
    };
  }

  /** `DeliveryDeps.pause` of the drivers built from now on (`restart`). Default none. */
  pause: (() => Promise<void>) | undefined;

  /** A crash and restart: new driver objects (breaker and last-flush time lost) over the same store. */
  restart(): void {
    this.dispatcher = new MsgDispatcher(this.deps, this.msgOptions);
    this.flusher = new SchdFlusher(this.deps, this.schdOptions);
  }

  msgRecords(): readonly BrokerRecord[] {
    return this.broker.records("msg");
  }

  schdRecords(): readonly BrokerRecord[] {
    return this.broker.records("schd");
  }
}

export const msgDraft = (flid: string, stateVersion: number, extra: Partial<OutboxEventDraft> = {}): OutboxEventDraft => ({
  target: Target.MSG,
  partitionKey: flid,
  eventType: EventType.UPSERT,
  stateVersion,
  payload: { flid, stateVersion },
  sourceMsgId: stateVersion,
  traceparent: null,
  ...extra,
});

export const schdDraft = (flid: string, stateVersion: number, tombstone = false): OutboxEventDraft => ({
  target: Target.SCHD,
  partitionKey: flid,
  eventType: tombstone ? EventType.TOMBSTONE : EventType.UPSERT,
  stateVersion,
  payload: tombstone ? null : { flid, stateVersion, state: `s${stateVersion}` },
  sourceMsgId: stateVersion,
  traceparent: null,
});

export const eventIdOf = (r: DeliveryRecord): number => {
  const id = readEventId(r.headers);
  if (id === undefined) throw new Error(`record ${r.topic}/${r.key} has no event id`);
  return id;
};

export const versionOf = (r: BrokerRecord): number => Number(r.headers[EventHeader.STATE_VERSION]);

/** Event ids in the order a deduping consumer first sees them. */
export function firstDeliveries(records: readonly BrokerRecord[]): number[] {
  const seen = new Set<number>();
  const order: number[] = [];
  for (const r of records) {
    const id = eventIdOf(r);
    if (!seen.has(id)) order.push(id);
    seen.add(id);
  }
  return order;
}
