/**
 * `QueueTopics` (issue 20): the reliable-message queue topics created on first use over a fake
 * kafkajs admin — missing ones created like the msg topic (delete policy, the partitions, the
 * broker's replication), known ones never asked for again, concurrent calls sharing one round
 * trip, and broker faults mapped.
 */
import { describe, expect, it } from "vitest";
import { QueueTopics, type QueueTopicAdmin } from "../src/reliable/queue-topics.js";

class FakeAdmin {
  readonly topics = new Set<string>(["rmq.present"]);
  readonly calls: string[] = [];
  readonly created: { topic: string; numPartitions?: number; replicationFactor?: number; configEntries?: { name: string; value: string }[] }[] = [];
  down = false;
  gate: Promise<void> = Promise.resolve();
  async listTopics(): Promise<string[]> {
    this.calls.push("list");
    await this.gate;
    if (this.down) throw Object.assign(new Error("Connection error: connect ECONNREFUSED 127.0.0.1:9092"), { name: "KafkaJSConnectionError" });
    return [...this.topics];
  }
  async createTopics(options: { topics: { topic: string }[] }): Promise<boolean> {
    this.calls.push("create");
    for (const t of options.topics) {
      this.topics.add(t.topic);
      this.created.push(t);
    }
    return true;
  }
  /** What the metadata answers after a create, one entry per call, before it shows every partition led. */
  readonly metadataAnswers: ("unknown-topic" | "leaderless" | "invalid-topic")[] = [];
  async fetchTopicMetadata(options: { topics: string[] }): Promise<{ topics: { name: string; partitions: { partitionId: number; leader: number }[] }[] }> {
    this.calls.push("metadata");
    const answer = this.metadataAnswers.shift();
    if (answer === "unknown-topic" || answer === "invalid-topic") {
      const type = answer === "unknown-topic" ? "UNKNOWN_TOPIC_OR_PARTITION" : "INVALID_TOPIC_EXCEPTION";
      throw Object.assign(new Error("This server does not host this topic-partition"), { name: "KafkaJSProtocolError", type, retriable: answer === "unknown-topic" });
    }
    return { topics: options.topics.map((name) => ({ name, partitions: [{ partitionId: 0, leader: answer === "leaderless" ? -1 : 1 }] })) };
  }
}

const topicsOver = (admin: FakeAdmin, partitions = 3) => new QueueTopics(admin as unknown as QueueTopicAdmin, { partitions });

describe("QueueTopics", () => {
  it("creates the missing topics with the delete policy and the configured partitions, then never asks again", async () => {
    const admin = new FakeAdmin();
    const topics = topicsOver(admin);
    await topics.ensure(["rmq.orders", "rmq-dlq.orders"]);
    expect(admin.created).toEqual([
      { topic: "rmq.orders", numPartitions: 3, replicationFactor: -1, configEntries: [{ name: "cleanup.policy", value: "delete" }] },
      { topic: "rmq-dlq.orders", numPartitions: 3, replicationFactor: -1, configEntries: [{ name: "cleanup.policy", value: "delete" }] },
    ]);
    admin.calls.length = 0;
    await topics.ensure(["rmq.orders", "rmq-dlq.orders"]);
    expect(admin.calls).toEqual([]);
    expect(await topics.exists("rmq.orders")).toBe(true);
    expect(admin.calls).toEqual([]);
  });

  it("creates nothing for topics that exist", async () => {
    const admin = new FakeAdmin();
    await topicsOver(admin).ensure(["rmq.present"]);
    expect(admin.calls).toEqual(["list"]);
  });

  it("shares one broker round trip between concurrent calls for the same topics", async () => {
    const admin = new FakeAdmin();
    let open!: () => void;
    admin.gate = new Promise((resolve) => (open = resolve));
    const topics = topicsOver(admin);
    const both = Promise.all([topics.ensure(["rmq.a", "rmq-dlq.a"]), topics.ensure(["rmq-dlq.a", "rmq.a"])]);
    open();
    await both;
    expect(admin.calls).toEqual(["list", "create", "metadata"]);
  });

  it("answers exists from the broker until the topic is there, and maps a broker fault", async () => {
    const admin = new FakeAdmin();
    const topics = topicsOver(admin);
    expect(await topics.exists("rmq.later")).toBe(false);
    admin.topics.add("rmq.later");
    expect(await topics.exists("rmq.later")).toBe(true);
    admin.down = true;
    await expect(topics.exists("rmq.other")).rejects.toMatchObject({ kind: "DEPENDENCY_UNAVAILABLE" });
    await expect(topics.ensure(["rmq.other"])).rejects.toMatchObject({ kind: "DEPENDENCY_UNAVAILABLE" });
    // A failed ensure is not remembered: it is tried again once the broker is back.
    admin.down = false;
    await topics.ensure(["rmq.other"]);
    expect(admin.topics.has("rmq.other")).toBe(true);
  });

  it("refuses partitions that are not a positive integer", () => {
    expect(() => topicsOver(new FakeAdmin(), 0)).toThrow(expect.objectContaining({ kind: "CONFIG" }));
  });

  it("waits after a create until every partition has a leader, through a broker that does not know the topic yet", async () => {
    const admin = new FakeAdmin();
    admin.metadataAnswers.push("unknown-topic", "leaderless", "unknown-topic");
    await topicsOver(admin).ensure(["rmq.new"]);
    expect(admin.calls).toEqual(["list", "create", "metadata", "metadata", "metadata", "metadata"]);
  });

  it("stops waiting at an answer that is not the broker getting ready, and maps it", async () => {
    const admin = new FakeAdmin();
    admin.metadataAnswers.push("unknown-topic", "invalid-topic");
    await expect(topicsOver(admin).ensure(["rmq.new"])).rejects.toMatchObject({ kind: "INFRA" });
    expect(admin.calls).toEqual(["list", "create", "metadata", "metadata"]);
  });
});
