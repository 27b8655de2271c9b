import { ensureQueueTopics, type QueueTopicAdmin } from "../reliable/queue-topics.js";

export interface EnsureTaskTopicsOptions {
  /** The task event topics (`taskTopics(routing, owners)`) and, if used, the callback result topic. */
  readonly topics: readonly string[];
  /** Partitions of a topic that is created (an existing one is never repartitioned). */
  readonly partitions: number;
  readonly replicationFactor?: number;
  readonly minInsyncReplicas?: number;
  readonly timeoutMs?: number;
}

/**
 * Creates the task-routing topics that are missing (`cleanup.policy=delete`: every event is kept
 * for the retention) and waits for their leaders. Safe to run from several processes at once.
 */
export function ensureTaskTopics(admin: QueueTopicAdmin, options: EnsureTaskTopicsOptions): Promise<readonly string[]> {
  const { topics, ...rest } = options;
  return ensureQueueTopics(admin, topics, rest);
}
