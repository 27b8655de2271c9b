import { MsgxError } from "@msgx/core";
import type { Admin } from "kafkajs";
import { mapKafkaError } from "./kafka-error-map.js";

/** How the topics msgx creates are replicated. */
export interface TopicReplication {
  /** Copies of every partition, leader included. */
  readonly replicationFactor: number;
  /**
   * Copies that must have a record before an acks=all produce is acknowledged; with fewer in sync
   * the broker refuses the produce (NOT_ENOUGH_REPLICAS) instead of accepting a record it could lose.
   */
  readonly minInsyncReplicas: number;
}

/** Operator settings that replace what the cluster's size would give (`kafka.replicationFactor` / `kafka.minInsyncReplicas`). */
export interface TopicReplicationOverrides {
  readonly replicationFactor?: number | undefined;
  readonly minInsyncReplicas?: number | undefined;
}

/** The largest replication factor msgx picks by itself: 3 copies survive any one broker lost, with one to spare. */
export const MAX_AUTO_REPLICATION_FACTOR = 3;

/**
 * The replication for a cluster of `brokers` brokers: a factor of min(3, brokers), and
 * `min.insync.replicas` 2 once the factor is 3 or more — an acknowledged record is then on two
 * brokers, so losing any one (the leader included) loses nothing, and one broker down still
 * leaves the topic writable. Below a factor of 3 it is 1: with 2 of 2 required, either broker
 * down would stop every write. Overrides win; `minInsyncReplicas` above the factor is refused
 * (`MsgxError("CONFIG")`): every produce would fail.
 */
export function replicationForBrokers(brokers: number, overrides: TopicReplicationOverrides = {}): TopicReplication {
  const replicationFactor = overrides.replicationFactor ?? Math.max(1, Math.min(MAX_AUTO_REPLICATION_FACTOR, brokers));
  const minInsyncReplicas = overrides.minInsyncReplicas ?? (replicationFactor >= 3 ? 2 : 1);
  if (!Number.isInteger(replicationFactor) || replicationFactor < 1) {
    throw new MsgxError("CONFIG", `replication factor must be a positive integer: ${replicationFactor}`, { retriable: false });
  }
  if (!Number.isInteger(minInsyncReplicas) || minInsyncReplicas < 1 || minInsyncReplicas > replicationFactor) {
    throw new MsgxError("CONFIG", `min.insync.replicas must be an integer from 1 to the replication factor ${replicationFactor}: ${minInsyncReplicas}`, { retriable: false });
  }
  return { replicationFactor, minInsyncReplicas };
}

/**
 * {@link replicationForBrokers} for the brokers the cluster registers now (`describeCluster`). A
 * broker that is down at that moment is not counted: where the size is known, set the overrides.
 * Broker failures are mapped like the delivery port's (`DEPENDENCY_UNAVAILABLE` / `INFRA`).
 */
export async function clusterReplication(admin: Pick<Admin, "describeCluster">, overrides: TopicReplicationOverrides = {}): Promise<TopicReplication & { readonly brokers: number }> {
  let brokers: number;
  try {
    brokers = (await admin.describeCluster()).brokers.length;
  } catch (e) {
    throw mapKafkaError(e, "describe the Kafka cluster");
  }
  return { ...replicationForBrokers(brokers, overrides), brokers };
}
