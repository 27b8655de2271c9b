import type { DeliveryPort, Logger } from "@msgx/core";
import type { MsgxConfig } from "../config/config-schema.js";
import { JsonlDeliveryPort } from "../embedded/jsonl-delivery-port.js";
import type { QueueTopicsPort } from "./app-parts.js";
import type { HealthCheck } from "./health-check.js";
import { openKafka } from "./kafka-part.js";
import type { PartClosers } from "./part-closers.js";

/** Where events go, and what checks it. */
export interface DeliveryParts {
  readonly delivery: DeliveryPort;
  /** Absent for JSONL files, and for an admin command (it creates no topics). */
  readonly queueTopics?: QueueTopicsPort;
  readonly checks: readonly HealthCheck[];
}

export interface DeliveryOptions {
  /** An admin command: it creates no topics. */
  readonly admin: boolean;
  /** Ends a Kafka connect in progress. */
  readonly signal?: AbortSignal;
  /** Whether this runner still leads (PostgreSQL leadership): the Kafka producer is fenced per leader. */
  readonly confirmLeadership?: (() => Promise<boolean>) | undefined;
  /** Told when Kafka is being opened. */
  opening(): void;
}

/** Events go to Kafka at `kafka.brokers` (kafka-part.ts: the runner starts without a broker), else to JSONL files in the data directory. */
export async function openDelivery(config: MsgxConfig, logger: Logger, closers: PartClosers, options: DeliveryOptions): Promise<DeliveryParts> {
  if (config.kafka.brokers !== undefined) {
    options.opening();
    const kafka = await openKafka(config, logger, { admin: options.admin, signal: options.signal, confirmLeadership: options.confirmLeadership });
    closers.add(() => kafka.close());
    return { delivery: kafka.delivery, ...(kafka.queueTopics ? { queueTopics: kafka.queueTopics } : {}), checks: [kafka.check] };
  }
  const jsonl = new JsonlDeliveryPort(config.dataDir);
  closers.add(() => jsonl.close());
  return { delivery: jsonl, checks: [] };
}
