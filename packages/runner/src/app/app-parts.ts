import type {
  DeliveryPort,
  FlightReader,
  LineageReader,
  Mailbox,
  MaintenanceStore,
  OutboundMailbox,
  OutboxStore,
  PipelineStore,
  ReferenceReader,
  RequestStore,
  RunnerPresenceStore,
  StatusReader,
  ThroughputReader,
} from "@msgx/core";
import type { ReliableMessageChecker, ReliableMessageStore } from "@msgx/reliable";
import type { TaskStore } from "@msgx/tasks";
import type { HealthCheck } from "./health-check.js";

/**
 * The adapters one runner works over, chosen by the profile: PGlite + JSONL files (embedded) or
 * PostgreSQL + MySQL + Kafka (production). `close` releases every one of them.
 */
export interface AppParts {
  readonly kind: "embedded" | "real";
  readonly store: PipelineStore;
  readonly outbox: OutboxStore;
  readonly flights: FlightReader;
  /** Lineage of flights and reference entries, from the outbox and the processing records. */
  readonly lineage: LineageReader;
  readonly status: StatusReader;
  /** Per-minute counts of finished records and sent events (`GET /admin/status/history`). */
  readonly throughput: ThroughputReader;
  /** The runners of this database by their heartbeats (`GET /admin/runners`). */
  readonly presence: RunnerPresenceStore;
  /** Upstream requests (`REQ_TRACK`) in msgx's own database. */
  readonly requests: RequestStore;
  /** Reference data received from the upstream. */
  readonly references: ReferenceReader;
  /** The maintenance jobs' store, under the same advisory lock as the pipeline store. */
  readonly maintenance: MaintenanceStore;
  /** The reliable-message store (SPEC §4) in msgx's own database. */
  readonly reliable: ReliableMessageStore;
  /** The task service's store (seed 001) in msgx's own database. */
  readonly tasks: TaskStore;
  readonly mailbox: Mailbox;
  /** Where upstream requests go: the upstream's `coutmsgs` (`mysql.outbound`), or an embedded `coutmsgs` beside the embedded mailbox. */
  readonly outbound: OutboundMailbox;
  readonly delivery: DeliveryPort;
  /**
   * The producers' check-back endpoints where they are not HTTP (the deterministic simulation's):
   * the checker of a queue, or undefined for the configured one (`reliable.queues.<q>.checkerUrl`,
   * else `reliable.defaultCheckerUrl`, over HTTP). Absent in `buildParts`.
   */
  readonly reliableCheckers?: (queue: string) => ReliableMessageChecker | undefined;
  /** The Kafka topics of reliable-message queues and task events; absent when events go to JSONL files (no topics there). */
  readonly queueTopics?: QueueTopicsPort;
  readonly checks: readonly HealthCheck[];
  /** The fencing epoch of this runner's leadership, when the store has leadership. */
  readonly fence?: number;
  /** Resolves if leadership is lost (another runner took over): the runner must stop at once. */
  readonly leadershipLost?: Promise<string>;
  /** Whether this runner may start a pipeline step now (inside its leadership lease's window), when the store has leadership. */
  readonly leading?: () => boolean;
  close(): Promise<void>;
}

/** Creates or looks up the topics of reliable-message queues and task events (`QueueTopics` of @msgx/adapters-kafka). */
export interface QueueTopicsPort {
  /** Creates those of `topics` that do not exist yet; throws a `MsgxError` when the broker cannot. */
  ensure(topics: readonly string[]): Promise<void>;
  /** Whether `topic` exists. */
  exists(topic: string): Promise<boolean>;
}
