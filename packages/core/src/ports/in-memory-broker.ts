import { MsgxError, type ErrorKind } from "../errors/msgx-error.js";
import type { DeliveryPlacement, DeliveryPort, DeliveryRecord, ProducerFencing } from "./delivery-port.js";
import { FaultPlan } from "../testing/fault-plan.js";

/** A record as the broker stored it: its topic's offset is its position in the topic. */
export interface BrokerRecord extends DeliveryRecord {
  readonly offset: number;
}

interface RecordFault {
  readonly predicate: (record: DeliveryRecord) => boolean;
  readonly kind: ErrorKind;
  readonly retriable: boolean | undefined;
}

/**
 * An in-memory broker: one append-only array per topic, never reordered. `send` appends a call's
 * records in order and resolves, like acks=all, with each record's placement: every topic is one
 * partition (0), and the offset is the record's position in its topic. Fault hooks:
 * - `faults.setDown(true)` (or `faults.failNext("send", n, kind)`): the call throws before
 *   appending anything (`DEPENDENCY_UNAVAILABLE` when down);
 * - `loseNextAcks(n)`: the next n calls append everything and then throw `DEPENDENCY_UNAVAILABLE`
 *   as if the acknowledgement timed out, so the sender resends and duplicates appear;
 * - `failRecords(predicate)`: a record that matches is refused with a non-outage fault; the
 *   records of the call ahead of it are appended (an in-order prefix), none after it. With
 *   `{ retriable: false }` the refusal is for good, as Kafka's MESSAGE_TOO_LARGE.
 *
 * `producer(fencing)` is a port fenced per transactional id (`ProducerFencing`), as Kafka's
 * transactional producers are: each claim of an id fences the earlier ones, checked when the
 * records are appended (a send that was under way when a later claim came in is refused).
 */
export class InMemoryBroker implements DeliveryPort {
  readonly faults = new FaultPlan("broker");
  readonly #topics = new Map<string, BrokerRecord[]>();
  readonly #recordFaults = new Set<RecordFault>();
  /** Per transactional id, the number of its latest claim. */
  readonly #claims = new Map<string, number>();
  #lostAcks = 0;
  #calls = 0;

  /** How many times `send` was called (failed calls included). */
  get calls(): number {
    return this.#calls;
  }

  /** The next `count` calls lose their acknowledgement after appending. */
  loseNextAcks(count: number): void {
    this.#lostAcks += count;
  }

  /** Refuses every record that matches until the returned function is called (`retriable` over the kind's default). */
  failRecords(predicate: (record: DeliveryRecord) => boolean, kind: ErrorKind = "INFRA", options: { readonly retriable?: boolean } = {}): () => void {
    const fault: RecordFault = { predicate, kind, retriable: options.retriable };
    this.#recordFaults.add(fault);
    return () => this.#recordFaults.delete(fault);
  }

  /** The records of `topic` in offset order. */
  records(topic: string): readonly BrokerRecord[] {
    return this.#topics.get(topic) ?? [];
  }

  topicNames(): readonly string[] {
    return [...this.#topics.keys()];
  }

  /** A port whose sends are fenced per `fencing.transactionalId` (see `ProducerFencing`). */
  producer(fencing: ProducerFencing): DeliveryPort {
    const id = fencing.transactionalId;
    let claim: number | undefined;
    let fenced = false;
    return {
      send: async (records, signal) => {
        if (fenced) throw new MsgxError("FENCED", `producer ${id}: this process no longer leads`, { retriable: false });
        if (claim === undefined) {
          const mine = (this.#claims.get(id) ?? 0) + 1;
          this.#claims.set(id, mine);
          if (!(await fencing.confirm())) {
            fenced = true;
            throw new MsgxError("FENCED", `producer ${id}: this process no longer leads`, { retriable: false });
          }
          claim = mine;
        }
        if (this.#claims.get(id) !== claim) {
          claim = undefined;
          throw new MsgxError("DEPENDENCY_UNAVAILABLE", `producer ${id} was fenced by a later claim (simulated PRODUCER_FENCED)`);
        }
        try {
          return await this.send(records, signal);
        } catch (e) {
          claim = undefined;
          throw e;
        }
      },
    };
  }

  async send(records: readonly DeliveryRecord[], signal?: AbortSignal): Promise<readonly DeliveryPlacement[]> {
    this.#calls += 1;
    if (signal?.aborted) throw new MsgxError("DEPENDENCY_UNAVAILABLE", "broker send aborted");
    this.faults.check("send");
    const placements: DeliveryPlacement[] = [];
    for (const r of records) {
      for (const f of this.#recordFaults) {
        if (f.predicate(r)) {
          const message = `broker refused record ${r.topic}/${r.key} (simulated ${f.kind})`;
          throw new MsgxError(f.kind, message, f.retriable === undefined ? {} : { retriable: f.retriable });
        }
      }
      const topic = this.#topics.get(r.topic) ?? [];
      this.#topics.set(r.topic, topic);
      placements.push({ partition: 0, offset: topic.length });
      topic.push({ ...r, headers: { ...r.headers }, offset: topic.length });
    }
    if (this.#lostAcks > 0) {
      this.#lostAcks -= 1;
      throw new MsgxError("DEPENDENCY_UNAVAILABLE", "broker acknowledgement lost (simulated timeout)");
    }
    return placements;
  }
}
