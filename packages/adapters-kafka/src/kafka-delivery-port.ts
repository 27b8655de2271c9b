import { MsgxError, silentLogger, type DeliveryPlacement, type DeliveryPort, type DeliveryRecord, type Logger, type ProducerFencing } from "@msgx/core";
import kafkajs, {
  type Kafka,
  type KafkaConfig,
  type Message,
  type Producer,
  type ProducerBatch,
  type ProducerConfig,
  type RecordMetadata,
  type RetryOptions,
  type TopicMessages,
  type logLevel,
} from "kafkajs";
import { mapKafkaError } from "./kafka-error-map.js";
import { kafkajsLogCreator } from "./kafkajs-log-creator.js";
import { assertSafeProducerConfig } from "./producer-safety.js";
import { recordingPartitioner, recordPlacements, type SentMessage } from "./record-placements.js";
import { stopIdleRequestChecks } from "./idle-request-checks.js";
import { cacheTransactionCoordinators } from "./transaction-coordinator-cache.js";

// kafkajs is CommonJS: the default import works from Node ESM and CJS builds alike.
const { Kafka: KafkaClient, Partitioners, logLevel: LogLevel } = kafkajs;

/** Producer settings a user may override; the merged result must pass `assertSafeProducerConfig`. */
export interface KafkaProducerOverrides {
  readonly acks?: number | string;
  readonly idempotent?: boolean;
  readonly maxInFlightRequests?: number;
  readonly retry?: RetryOptions;
  readonly metadataMaxAge?: number;
  readonly allowAutoTopicCreation?: boolean;
}

export interface KafkaDeliveryPortOptions {
  /** Bootstrap brokers, `host:port`. */
  readonly brokers: readonly string[];
  readonly clientId?: string;
  readonly ssl?: KafkaConfig["ssl"];
  readonly sasl?: KafkaConfig["sasl"];
  readonly logger?: Logger;
  /** kafkajs log level (default WARN). */
  readonly kafkajsLogLevel?: logLevel;
  /** TCP connect timeout per broker (default 3 s). */
  readonly connectionTimeoutMs?: number;
  /** Time kafkajs waits for any broker response (default 15 s; above `ackTimeoutMs`). */
  readonly requestTimeoutMs?: number;
  /** Time the broker may wait for all in-sync replicas before it answers a produce (default 10 s). */
  readonly ackTimeoutMs?: number;
  /** Hard bound on one `send` including connecting and kafkajs' own retries (default 30 s). */
  readonly sendTimeoutMs?: number;
  /**
   * After a failed send, how long the port waits at most for kafkajs to settle what the dropped
   * producer still had in flight before it builds a new one (default 60 s). Sends meanwhile fail
   * with `DEPENDENCY_UNAVAILABLE` at their own deadline.
   */
  readonly drainTimeoutMs?: number;
  /** Unsafe settings are refused at construction (`MsgxError("CONFIG")`). */
  readonly producer?: KafkaProducerOverrides;
  /**
   * Fences a stale leader's sends on the broker (`ProducerFencing`): the producer is transactional
   * with `fencing.transactionalId` (its InitProducerId fences every earlier producer of the id), and
   * every send is one transaction. Without it the producer is idempotent only.
   */
  readonly fencing?: ProducerFencing;
}

/**
 * A few quick retries inside kafkajs ride over a leader move; anything longer is an outage the
 * caller's breaker handles (kafkajs' own default for an idempotent producer retries forever).
 * They start at 5 ms because the commonest retry is `CONCURRENT_TRANSACTIONS`: a transaction's
 * first AddPartitionsToTxn reaching the coordinator while it still writes the previous
 * transaction's commit markers, which takes a few milliseconds, so one short wait nearly always
 * clears it (Kafka's Java producer waits 20 ms for that one; docs/benchmarks.md, "2026-12-07 (4)").
 * Seven of them (5 → 320 ms) wait as long in all as five from 20 ms did.
 */
export const DEFAULT_PRODUCER_RETRY: RetryOptions = { retries: 7, initialRetryTime: 5, maxRetryTime: 2_000, factor: 0.2, multiplier: 2 };

const DEFAULTS = {
  clientId: "msgx",
  connectionTimeoutMs: 3_000,
  requestTimeoutMs: 15_000,
  ackTimeoutMs: 10_000,
  sendTimeoutMs: 30_000,
  drainTimeoutMs: 60_000,
} as const;

/** The effective, checked producer settings (for start-up logs and health pages). */
export interface KafkaProducerSettings {
  readonly acks: -1;
  readonly idempotent: true;
  readonly maxInFlightRequests: 1;
  readonly retries: number;
  readonly partitioner: "murmur2 (Java-compatible DefaultPartitioner)";
}

/**
 * `DeliveryPort` on kafkajs.
 *
 * - Durable and ordered: an idempotent producer, one request in flight per broker, acks=all on
 *   every send, keys hashed with Java's murmur2 (the same partition a Java producer picks).
 * - One `send` is one `producer.sendBatch` with every record, grouped per topic in call order.
 *   Calls are serialized, so a call's records are never reordered behind a later call's.
 * - It resolves to each record's partition and offset, from the broker's acknowledgement (the
 *   base offset of each partition's batch; see `recordPlacements`). A call in which any record's
 *   partition went unacknowledged fails (`DEPENDENCY_UNAVAILABLE`), even when kafkajs resolved it.
 * - Bounded: connect, request, broker ack and the whole send each have a timeout, and kafkajs
 *   retries only briefly, so an outage surfaces quickly as `DEPENDENCY_UNAVAILABLE`.
 * - After any failed send the producer is dropped and the next send builds a new one (new producer
 *   id, fresh sequence numbers): kafkajs rolls its sequence numbers back after a failed request
 *   even when the broker may have appended it, and a later batch reusing those numbers could be
 *   taken by the broker for a duplicate and silently dropped. The new producer is built only once
 *   the dropped one has settled everything it had in flight (bounded by `drainTimeoutMs`): after
 *   a deadline or an abort, kafkajs may still be retrying, and a late copy of an old record must
 *   not land behind a newer one. Per key, a failed call has appended all or none of its records
 *   (one record batch per partition); the caller resends them with the same event id.
 * - An aborted `signal` rejects with `signal.reason`; the outcome of an in-flight request is then
 *   unknown, as for any failure.
 * - With `fencing` (`ProducerFencing`), each producer it builds is transactional: connecting it
 *   claims the transactional id (InitProducerId: the broker fences every earlier producer of the
 *   id and aborts its open transaction), then `fencing.confirm()` is asked before anything is sent
 *   (a no disconnects it and refuses every later send `FENCED`). Each send is one transaction
 *   (records, then commit; the coordinator's address is kept between transactions,
 *   `cacheTransactionCoordinators`); a fenced producer's produce or commit is refused by the broker, so a
 *   stale leader's records never land after a newer leader's claim. A failed send aborts its
 *   transaction: consumers reading committed records never see it, and compaction removes it.
 */
export class KafkaDeliveryPort implements DeliveryPort {
  readonly #kafka: Kafka;
  readonly #producerConfig: ProducerConfig;
  readonly #ackTimeoutMs: number;
  readonly #sendTimeoutMs: number;
  readonly #drainTimeoutMs: number;
  readonly #logger: Logger;
  /** The partition the partitioner picked for each message of a send in progress. */
  readonly #partitionOf = new WeakMap<Message, number>();
  #producer: Producer | undefined;
  #connecting: Promise<Producer> | undefined;
  /** Settles once the dropped producer has nothing in flight and is disconnected. */
  #drained: Promise<void> = Promise.resolve();
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;
  readonly #fencing: ProducerFencing | undefined;
  /** Set once `fencing.confirm()` said no: this process no longer leads, nothing more is sent. */
  #fenced = false;
  readonly settings: KafkaProducerSettings;

  constructor(options: KafkaDeliveryPortOptions) {
    if (options.brokers.length === 0) throw new MsgxError("CONFIG", "Kafka delivery port: no brokers configured");
    const o = { ...DEFAULTS, ...definedOnly(options) };
    const merged = {
      acks: -1 as number | string,
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
      ...options.producer,
      retry: { ...DEFAULT_PRODUCER_RETRY, ...options.producer?.retry },
      createPartitioner: Partitioners.DefaultPartitioner,
    };
    assertSafeProducerConfig(merged);
    const { acks: _acks, ...producerConfig } = merged;
    this.#fencing = options.fencing;
    this.#producerConfig = {
      ...producerConfig,
      createPartitioner: recordingPartitioner(merged.createPartitioner, this.#partitionOf),
      ...(options.fencing === undefined ? {} : { transactionalId: options.fencing.transactionalId }),
    };
    this.#ackTimeoutMs = o.ackTimeoutMs;
    this.#drainTimeoutMs = o.drainTimeoutMs;
    this.#sendTimeoutMs = o.sendTimeoutMs;
    this.#logger = options.logger ?? silentLogger;
    this.settings = {
      acks: -1,
      idempotent: true,
      maxInFlightRequests: 1,
      retries: merged.retry.retries ?? 0,
      partitioner: "murmur2 (Java-compatible DefaultPartitioner)",
    };
    this.#kafka = new KafkaClient({
      clientId: o.clientId,
      brokers: [...options.brokers],
      ...(options.ssl === undefined ? {} : { ssl: options.ssl }),
      ...(options.sasl === undefined ? {} : { sasl: options.sasl }),
      connectionTimeout: o.connectionTimeoutMs,
      requestTimeout: Math.max(o.requestTimeoutMs, o.ackTimeoutMs + 1_000),
      enforceRequestTimeout: true,
      retry: merged.retry,
      logLevel: options.kafkajsLogLevel ?? LogLevel.WARN,
      logCreator: kafkajsLogCreator(this.#logger),
    });
    stopIdleRequestChecks(this.#kafka);
    // A send is a transaction with fencing: without the cache, kafkajs asks for the coordinator twice in each.
    if (options.fencing !== undefined && !cacheTransactionCoordinators(this.#kafka)) {
      this.#logger.warn("kafka: this kafkajs has no cluster factory to cache transaction coordinators in; each send also looks its coordinator up twice");
    }
  }

  /** Connects the producer now (otherwise the first `send` does). Throws a mapped `MsgxError`. */
  async connect(signal?: AbortSignal): Promise<void> {
    await this.#serialized(() => this.#bounded(this.#ensureProducer(), "connect", signal));
  }

  /**
   * Publishes `records` in one batch; resolves once every record is acknowledged by all in-sync
   * replicas, to each record's partition and offset in call order. See the class documentation
   * for failures.
   */
  async send(records: readonly DeliveryRecord[], signal?: AbortSignal): Promise<readonly (DeliveryPlacement | null)[]> {
    signal?.throwIfAborted();
    if (records.length === 0) return [];
    return abortable(
      this.#serialized(() => this.#sendNow(records, signal)),
      signal,
    );
  }

  /**
   * Waits for the send in progress, then disconnects (waiting at most 5 s for a producer dropped
   * after a failure to settle). Later sends are refused.
   */
  async disconnect(): Promise<void> {
    this.#closed = true;
    await this.#queue.catch(() => undefined);
    this.#discard(Promise.resolve());
    await Promise.race([this.#drained, delay(5_000)]);
  }

  async #sendNow(records: readonly DeliveryRecord[], signal: AbortSignal | undefined): Promise<readonly (DeliveryPlacement | null)[]> {
    signal?.throwIfAborted();
    const sent = records.map((r): SentMessage => ({ topic: r.topic, message: { key: r.key, value: r.value, headers: { ...r.headers } } }));
    const topicMessages = groupPerTopic(sent);
    const what = `send of ${records.length} record(s) to ${topicMessages.map((t) => t.topic).join(", ")}`;
    return this.#bounded(
      (async () => {
        const producer = await this.#ensureProducer();
        const acks = await this.#produce(producer, { topicMessages, acks: -1, timeout: this.#ackTimeoutMs });
        const placements = recordPlacements(sent, this.#partitionOf, acks);
        const unacknowledged = placements.filter((p) => p === null).length;
        // kafkajs 2.2.4 keeps, across the retries of one sendBatch, the answers of brokers that
        // answered: when a partition's leader moves during the retries to one of them, its records
        // are never sent, and sendBatch still resolves (tulios/kafkajs#1303, #1798). Only a record
        // whose partition the broker acknowledged is delivered; the call fails and is resent whole.
        if (unacknowledged > 0) {
          throw new MsgxError("DEPENDENCY_UNAVAILABLE", `Kafka is unavailable (${what}): ${unacknowledged} record(s) have no acknowledgement from their partition's leader (a leader moved during the send)`);
        }
        return placements;
      })(),
      what,
      signal,
    );
  }

  /** One `sendBatch`; with fencing, inside a transaction that commits it (or aborts it on failure). */
  async #produce(producer: Producer, batch: ProducerBatch): Promise<RecordMetadata[]> {
    if (this.#fencing === undefined) return producer.sendBatch(batch);
    const transaction = await producer.transaction();
    try {
      const acks = await transaction.sendBatch(batch);
      await transaction.commit();
      return acks;
    } catch (e) {
      await transaction.abort().catch(() => undefined);
      throw e;
    }
  }

  /** Runs `work` under the send deadline and the caller's signal; any failure drops the producer. */
  async #bounded<T>(work: Promise<T>, what: string, signal: AbortSignal | undefined): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new MsgxError("DEPENDENCY_UNAVAILABLE", `Kafka is unavailable (${what}): no answer within ${this.#sendTimeoutMs} ms`)),
        this.#sendTimeoutMs,
      );
    });
    work.catch(() => undefined); // settled later than the race when the deadline or abort wins
    try {
      return await abortable(Promise.race([work, deadline]), signal);
    } catch (e) {
      this.#discard(work);
      if (signal?.aborted === true && e === signal.reason) throw e;
      const mapped = mapKafkaError(e, what);
      this.#logger.debug("kafka: producer dropped after a failed request", { kind: mapped.kind, error: mapped.message });
      throw mapped;
    } finally {
      clearTimeout(timer);
    }
  }

  #ensureProducer(): Promise<Producer> {
    if (this.#closed) return Promise.reject(new MsgxError("CONFIG", "Kafka delivery port is disconnected", { retriable: false }));
    if (this.#fenced) return Promise.reject(notLeading(this.#fencing));
    if (this.#producer !== undefined) return Promise.resolve(this.#producer);
    this.#connecting ??= (async () => {
      await this.#drained;
      const producer = this.#kafka.producer(this.#producerConfig);
      try {
        await producer.connect();
      } catch (e) {
        void producer.disconnect().catch(() => undefined);
        throw mapKafkaError(e, "connect", "connect");
      }
      const fencing = this.#fencing;
      if (fencing !== undefined) {
        // kafkajs claims the transactional id (InitProducerId) at the first transaction; an empty
        // one ends without a request. Only a yes read after the claim lets this producer send.
        try {
          await (await producer.transaction()).abort();
        } catch (e) {
          void producer.disconnect().catch(() => undefined);
          throw mapKafkaError(e, "claim of the transactional id", "connect");
        }
        const leads = await fencing.confirm().catch((e: unknown) => {
          void producer.disconnect().catch(() => undefined);
          throw new MsgxError("DEPENDENCY_UNAVAILABLE", `Kafka producer ${fencing.transactionalId}: leadership could not be confirmed`, { cause: e });
        });
        if (!leads) {
          this.#fenced = true;
          void producer.disconnect().catch(() => undefined);
          throw notLeading(fencing);
        }
      }
      this.#producer = producer;
      return producer;
    })().finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  /**
   * Drops the producer. `inFlight` is what it may still be doing: kafkajs keeps retrying a request
   * after the port gave up on it, and would even reconnect a disconnected producer to do so, so
   * the producer is disconnected only after that settles. Bounded: a wedged kafkajs promise must
   * not stop the port for good.
   */
  #discard(inFlight: Promise<unknown>): void {
    const old = this.#producer;
    this.#producer = undefined;
    if (old === undefined) return;
    const previous = this.#drained;
    let settled = false;
    const drained = (async () => {
      await previous;
      await inFlight.catch(() => undefined);
      await old.disconnect();
    })()
      .catch((e: unknown) => {
        this.#logger.debug("kafka: disconnecting a dropped producer failed", { error: String(e) });
      })
      .finally(() => {
        settled = true;
      });
    this.#drained = Promise.race([
      drained,
      delay(this.#drainTimeoutMs).then(() => {
        if (!settled) this.#logger.warn("kafka: a dropped producer did not settle in time; building a new one anyway", { drainTimeoutMs: this.#drainTimeoutMs });
      }),
    ]);
  }

  #serialized<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task);
    this.#queue = run.catch(() => undefined);
    return run;
  }
}

function notLeading(fencing: ProducerFencing | undefined): MsgxError {
  return new MsgxError("FENCED", `Kafka producer ${fencing?.transactionalId ?? ""}: this process no longer leads; nothing more is sent`, { retriable: false });
}

/** Messages grouped per topic, topics in order of first appearance, messages in call order. */
function groupPerTopic(sent: readonly SentMessage[]): TopicMessages[] {
  const byTopic = new Map<string, Message[]>();
  for (const { topic, message } of sent) {
    let messages = byTopic.get(topic);
    if (messages === undefined) {
      messages = [];
      byTopic.set(topic, messages);
    }
    messages.push(message);
  }
  return [...byTopic].map(([topic, messages]) => ({ topic, messages }));
}

function abortable<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return work;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
