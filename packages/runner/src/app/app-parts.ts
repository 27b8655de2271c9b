import type { DeliveryPort, FlightReader, Mailbox, OutboxStore, PipelineStore, StatusReader } from "@msgx/core";
import type { Kysely } from "kysely";
import type { HealthCheck } from "../http/http-context.js";
import type { OutboundMailbox } from "./request-imports.js";

/**
 * The adapters one runner works over, chosen by the profile: PGlite + JSONL files (embedded) or
 * PostgreSQL + MySQL + Kafka (production). `close` releases every one of them.
 */
export interface AppParts {
  readonly kind: "embedded" | "real";
  readonly store: PipelineStore;
  /** The kysely handle of msgx's own database (PostgreSQL or PGlite), for stores built on it. */
  readonly db: Kysely<any>;
  readonly outbox: OutboxStore;
  readonly flights: FlightReader;
  readonly status: StatusReader;
  readonly mailbox: Mailbox;
  /** Where upstream requests go: the upstream's `coutmsgs` (`mysql.outbound`), or an embedded `coutmsgs` beside the embedded mailbox. */
  readonly outbound: OutboundMailbox;
  readonly delivery: DeliveryPort;
  readonly checks: readonly HealthCheck[];
  /** The fencing epoch of this runner's leadership, when the store has leadership. */
  readonly fence?: number;
  /** Resolves if leadership is lost (another runner took over): the runner must stop at once. */
  readonly leadershipLost?: Promise<string>;
  close(): Promise<void>;
}
