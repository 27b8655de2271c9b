import type { Admin } from "kafkajs";
import { mapKafkaError } from "./kafka-error-map.js";

/** What creating topics and waiting for their leaders needs of a kafkajs admin client. */
export type TopicCreator = Pick<Admin, "createTopics" | "fetchTopicMetadata">;

/** How often the metadata is asked again while a created topic has no leader everywhere yet. */
const POLL_MS = 100;

/**
 * Creates `topics` with `partitions` partitions and waits until every partition of each has a
 * leader, at most `timeoutMs`. kafkajs' own wait (`waitForLeaders`) retries only
 * LEADER_NOT_AVAILABLE, while a busy broker can first answer a new topic's metadata with
 * UNKNOWN_TOPIC_OR_PARTITION ("This server does not host this topic-partition"): this waits
 * through every answer that means the broker is not ready yet (an outage, as `mapKafkaError`
 * classifies it), and throws any other at once. A topic another process created meanwhile is
 * waited for like one of its own. Throws kafkajs' errors for the caller to map.
 */
export async function createTopicsAndWaitForLeaders(admin: TopicCreator, topics: Parameters<Admin["createTopics"]>[0]["topics"], timeoutMs: number): Promise<void> {
  if (topics.length === 0) return;
  await admin.createTopics({ topics, waitForLeaders: false, timeout: timeoutMs });
  const names = topics.map((t) => t.topic);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let last: unknown;
    try {
      const metadata = await admin.fetchTopicMetadata({ topics: names });
      const led = metadata.topics.length === names.length && metadata.topics.every((t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0));
      if (led) return;
    } catch (e) {
      if (mapKafkaError(e, "wait for topic leaders").kind !== "DEPENDENCY_UNAVAILABLE") throw e;
      last = e;
    }
    if (Date.now() >= deadline) {
      throw last ?? new Error(`topics ${names.join(", ")} have no leader for every partition after ${timeoutMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
