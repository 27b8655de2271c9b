import { MsgxError } from "@msgx/core";
// kafkajs is CommonJS: Node ESM cannot name-import what it builds its exports from.
import kafkajs from "kafkajs";

const { Partitioners } = kafkajs;

/**
 * The producer settings that decide durability and per-key order. `acks` is a per-send option in
 * kafkajs; it is part of this config so one check covers everything the port will use.
 */
export interface ProducerSafetyConfig {
  readonly acks?: unknown;
  readonly idempotent?: unknown;
  readonly maxInFlightRequests?: unknown;
  readonly retry?: { readonly retries?: unknown } | undefined;
  readonly createPartitioner?: unknown;
}

/**
 * Refuses (`MsgxError("CONFIG")`, not retriable) a producer config that would break SPEC §2.4:
 * - `acks` other than all (`-1` / `"all"`): a record acknowledged by the leader alone is lost
 *   when the leader fails before a follower copied it;
 * - `idempotent` not `true`: a retried batch would be appended twice and could overtake a later
 *   one;
 * - `maxInFlightRequests` other than `1` (kafkajs reads "unset" as unlimited): kafkajs keeps no
 *   per-partition sequence window, so concurrent requests with idempotence fail with
 *   OUT_OF_ORDER_SEQUENCE_NUMBER and a retried request can land behind a newer one;
 * - `retry.retries` below 1: kafkajs refuses idempotence without retries;
 * - a partitioner other than `Partitioners.DefaultPartitioner` (Java-compatible murmur2), so
 *   every producer of a topic sends a key to the same partition.
 *
 * The delivery port runs this on its fully merged config at construction: neither environment
 * variables nor user overrides can switch a guarantee off. It reports every violation at once.
 */
export function assertSafeProducerConfig(config: ProducerSafetyConfig): void {
  const problems: string[] = [];
  if (!isAcksAll(config.acks)) problems.push(`acks must be all (-1), got ${show(config.acks)}`);
  if (config.idempotent !== true) problems.push(`idempotent must be true, got ${show(config.idempotent)}`);
  if (config.maxInFlightRequests !== 1) {
    problems.push(`maxInFlightRequests must be 1 (order with idempotence in kafkajs), got ${show(config.maxInFlightRequests)}`);
  }
  const retries = config.retry?.retries;
  if (retries !== undefined && !(typeof retries === "number" && Number.isInteger(retries) && retries >= 1)) {
    problems.push(`retry.retries must be an integer >= 1 for the idempotent producer, got ${show(retries)}`);
  }
  if (
    config.createPartitioner !== undefined &&
    config.createPartitioner !== Partitioners.DefaultPartitioner &&
    config.createPartitioner !== Partitioners.JavaCompatiblePartitioner
  ) {
    problems.push("createPartitioner must be Partitioners.DefaultPartitioner (Java-compatible murmur2)");
  }
  if (problems.length > 0) {
    throw new MsgxError("CONFIG", `unsafe Kafka producer configuration: ${problems.join("; ")}`, { retriable: false });
  }
}

function isAcksAll(acks: unknown): boolean {
  return acks === -1 || (typeof acks === "string" && ["-1", "all"].includes(acks.trim().toLowerCase()));
}

function show(value: unknown): string {
  return value === undefined ? "unset" : JSON.stringify(value) ?? String(value);
}
