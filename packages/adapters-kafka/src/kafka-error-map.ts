import { MsgxError, errorMessage, isMsgxError } from "@msgx/core";

/**
 * How a kafkajs failure is classified at the port boundary:
 * - `outage`: the broker cannot take records right now, whatever they are (unreachable, timed
 *   out, retries exhausted, leaderless, not authorized, producer state lost). The caller pauses
 *   behind its breaker and spends no attempt: `MsgxError("DEPENDENCY_UNAVAILABLE")`.
 * - `record`: these records can never be accepted as they are (too large, invalid, bad topic
 *   name): `MsgxError("INFRA")`, not retriable.
 */
export type KafkaFailure = "outage" | "record";

/** Kafka protocol error types (kafkajs `error.type`) and what they mean for the sender. */
export const PROTOCOL_ERROR_TABLE: Readonly<Record<string, KafkaFailure>> = {
  // faults of the records themselves
  MESSAGE_TOO_LARGE: "record",
  RECORD_LIST_TOO_LARGE: "record",
  INVALID_RECORD: "record",
  CORRUPT_MESSAGE: "record",
  INVALID_TIMESTAMP: "record",
  INVALID_TOPIC_EXCEPTION: "record",
  UNSUPPORTED_FOR_MESSAGE_FORMAT: "record",
  UNSUPPORTED_COMPRESSION_TYPE: "record",
  POLICY_VIOLATION: "record",
  // every record would fail the same way: pause, do not burn attempts
  UNKNOWN_TOPIC_OR_PARTITION: "outage",
  LEADER_NOT_AVAILABLE: "outage",
  NOT_LEADER_FOR_PARTITION: "outage",
  REQUEST_TIMED_OUT: "outage",
  NETWORK_EXCEPTION: "outage",
  NOT_ENOUGH_REPLICAS: "outage",
  NOT_ENOUGH_REPLICAS_AFTER_APPEND: "outage",
  KAFKA_STORAGE_ERROR: "outage",
  BROKER_NOT_AVAILABLE: "outage",
  TOPIC_AUTHORIZATION_FAILED: "outage",
  CLUSTER_AUTHORIZATION_FAILED: "outage",
  SASL_AUTHENTICATION_FAILED: "outage",
  UNSUPPORTED_SASL_MECHANISM: "outage",
  ILLEGAL_SASL_STATE: "outage",
  UNSUPPORTED_VERSION: "outage",
  OUT_OF_ORDER_SEQUENCE_NUMBER: "outage",
  DUPLICATE_SEQUENCE_NUMBER: "outage",
  INVALID_PRODUCER_EPOCH: "outage",
  UNKNOWN_PRODUCER_ID: "outage",
  INVALID_PRODUCER_ID_MAPPING: "outage",
  // a fenced or busy transactional producer (ProducerFencing): the port claims again on its next send
  PRODUCER_FENCED: "outage",
  TRANSACTION_COORDINATOR_FENCED: "outage",
  INVALID_TXN_STATE: "outage",
  CONCURRENT_TRANSACTIONS: "outage",
  COORDINATOR_NOT_AVAILABLE: "outage",
  COORDINATOR_LOAD_IN_PROGRESS: "outage",
  NOT_COORDINATOR: "outage",
  TRANSACTIONAL_ID_AUTHORIZATION_FAILED: "outage",
};

/** kafkajs error class names (`error.name`) that mean the broker is not there or not answering. */
export const OUTAGE_ERROR_NAMES: ReadonlySet<string> = new Set([
  "KafkaJSConnectionError",
  "KafkaJSConnectionClosedError",
  "KafkaJSRequestTimeoutError",
  "KafkaJSNumberOfRetriesExceeded",
  "KafkaJSBrokerNotFound",
  "KafkaJSNoBrokerAvailableError",
  "KafkaJSMetadataNotLoaded",
  "KafkaJSTopicMetadataNotLoaded",
  "KafkaJSStaleTopicMetadataAssignment",
  "KafkaJSTimeout",
  "KafkaJSLockTimeout",
  "KafkaJSSASLAuthenticationError",
  "KafkaJSServerDoesNotSupportApiKey",
]);

/** Node socket error codes seen when a broker address is down or unreachable. */
const OUTAGE_SYSTEM_CODES: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENETDOWN",
]);

/**
 * Plain `Error`s kafkajs throws from its internals with no class, type or retriable flag. Seen:
 * "Broker not connected" when a broker's ApiVersions request timed out and a later request still
 * looks up its API versions (a broker that accepts connections but does not answer).
 */
const OUTAGE_MESSAGES: readonly RegExp[] = [/^Broker not connected$/];

/** Classifies any error thrown by kafkajs (walking its `cause` chain). */
export function classifyKafkaError(error: unknown): KafkaFailure {
  const chain = causeChain(error);
  // A record fault wins even when kafkajs wrapped it in a retries-exceeded error.
  for (const e of chain) if (PROTOCOL_ERROR_TABLE[field(e, "type") ?? ""] === "record") return "record";
  for (const e of chain) {
    if (PROTOCOL_ERROR_TABLE[field(e, "type") ?? ""] === "outage") return "outage";
    if (OUTAGE_ERROR_NAMES.has(field(e, "name") ?? "")) return "outage";
    if (OUTAGE_SYSTEM_CODES.has(field(e, "code") ?? "")) return "outage";
    if (e instanceof Error && OUTAGE_MESSAGES.some((re) => re.test(e.message))) return "outage";
  }
  // Otherwise trust the innermost kafkajs verdict: retriable means "not now", not "never".
  const innermost = [...chain].reverse().find((e) => typeof (e as { retriable?: unknown }).retriable === "boolean");
  return (innermost as { retriable?: boolean } | undefined)?.retriable === true ? "outage" : "record";
}

/**
 * Maps a kafkajs failure to the one error type that crosses the port. A `MsgxError` passes
 * through unchanged. `what` names the operation for the message (`send to msg, schd`); in the
 * `connect` phase every failure is an outage.
 */
export function mapKafkaError(error: unknown, what: string, phase: "connect" | "request" = "request"): MsgxError {
  if (isMsgxError(error)) return error;
  const detail = describe(error);
  // Nothing that fails while connecting can be a fault of records: never let it burn attempts.
  if (phase === "connect" || classifyKafkaError(error) === "outage") {
    return new MsgxError("DEPENDENCY_UNAVAILABLE", `Kafka is unavailable (${what}): ${detail}`, { cause: error });
  }
  return new MsgxError("INFRA", `Kafka refused the records (${what}): ${detail}`, { cause: error, retriable: false });
}

function describe(error: unknown): string {
  const chain = causeChain(error);
  const typed = chain.find((e) => field(e, "type") !== undefined);
  const inner = chain[chain.length - 1];
  const base = errorMessage(error);
  const innerMessage = inner !== undefined && inner !== error ? errorMessage(inner) : undefined;
  const parts = [field(error, "name") ?? "Error", base];
  if (innerMessage !== undefined && innerMessage !== base) parts.push(`caused by ${innerMessage}`);
  if (typed !== undefined) parts.push(`[${field(typed, "type")}]`);
  return parts.join(": ");
}

function causeChain(error: unknown): readonly unknown[] {
  const chain: unknown[] = [];
  const seen = new Set<unknown>();
  let e: unknown = error;
  while (e !== undefined && e !== null && !seen.has(e) && chain.length < 10) {
    chain.push(e);
    seen.add(e);
    e = (e as { cause?: unknown }).cause;
  }
  return chain;
}

function field(e: unknown, name: "type" | "name" | "code"): string | undefined {
  if (typeof e !== "object" || e === null) return undefined;
  const v = (e as Record<string, unknown>)[name];
  return typeof v === "string" ? v : undefined;
}
