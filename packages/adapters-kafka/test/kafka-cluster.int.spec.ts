import kafkajs from "kafkajs";
import { afterAll, describe, expect, it } from "vitest";
import { isMsgxError, type DeliveryPlacement, type DeliveryRecord } from "@msgx/core";
import { KafkaDeliveryPort, clusterReplication, ensureTopics } from "@msgx/adapters-kafka";
import { CLUSTER_BROKERS, clusterCommand, gateKafkaCluster } from "./kafka-cluster.js";
import { appendedCount, consume, eventHeadersOf, uniqueTopic } from "./kafka-test-kit.js";

const SUITE = "@msgx/adapters-kafka three-broker cluster: a leader killed mid-run";
const cluster = await gateKafkaCluster(SUITE);

const PARTITIONS = 3;
const KEYS = 12;
const PER_CALL = 10;
/** Calls sent before the kill, between the new leader and the restart, and after the rejoin. */
const CALLS_PER_PHASE = 25;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

afterAll(async () => {
  if (cluster.startedHere) await clusterCommand(["stop"]);
});

describe.skipIf(!cluster.available)("on the three-broker cluster (scripts/kafka cluster)", () => {
  it("creates msgx topics with RF 3 and min ISR 2, and through a kill -9 of the partition leader and its restart, loses no record, reorders none, and every acknowledged record is where the port said", async () => {
    const client = new kafkajs.Kafka({ clientId: "msgx-it-cluster", brokers: [...CLUSTER_BROKERS], logLevel: kafkajs.logLevel.NOTHING });
    const admin = client.admin();
    await admin.connect();
    const msgTopic = uniqueTopic("cluster-msg");
    const schdTopic = uniqueTopic("cluster-schd");
    const port = new KafkaDeliveryPort({ brokers: CLUSTER_BROKERS, clientId: "msgx-it-cluster-port" });
    try {
      // Topics as the runner creates them: replication from the cluster's size.
      const replication = await clusterReplication(admin);
      expect(replication).toEqual({ brokers: 3, replicationFactor: 3, minInsyncReplicas: 2 });
      await ensureTopics(admin, { msgTopic, schdTopic, partitions: PARTITIONS, ...replication });
      const described = await admin.describeConfigs({
        resources: [msgTopic, schdTopic].map((name) => ({ type: kafkajs.ConfigResourceTypes.TOPIC, name, configNames: ["min.insync.replicas"] })),
        includeSynonyms: false,
      });
      for (const r of described.resources) expect(r.configEntries.find((c) => c.configName === "min.insync.replicas")?.configValue, r.resourceName).toBe("2");
      const { topics } = await admin.fetchTopicMetadata({ topics: [msgTopic, schdTopic] });
      for (const t of topics) for (const p of t.partitions) {
        expect(p.replicas, `${t.name}/${p.partitionId}`).toHaveLength(3);
        expect(p.isr, `${t.name}/${p.partitionId}`).toHaveLength(3);
      }

      // What a relay does: send a call; on failure pause and resend the same records (same event ids).
      const sent: DeliveryRecord[] = [];
      const acked = new Map<number, DeliveryPlacement>();
      let failedSends = 0;
      /** Calls kafkajs resolved with a partition unacknowledged, refused by the port. */
      let partlyAcknowledged = 0;
      let nextId = 1;
      const sendCalls = async (calls: number) => {
        for (let c = 0; c < calls; c++) {
          const records = Array.from({ length: PER_CALL }, (): DeliveryRecord => {
            const eventId = nextId++;
            const key = `F${eventId % KEYS}`;
            return { topic: msgTopic, key, value: JSON.stringify({ eventId }), headers: eventHeadersOf({ eventId, eventType: "UPSERT", stateVersion: eventId, sourceMsgId: eventId }) };
          });
          sent.push(...records);
          for (;;) {
            try {
              const placements = await port.send(records);
              placements.forEach((p, i) => {
                // A resolved send places every record (a partition left unacknowledged fails the call).
                expect(p, `placement of record ${i} of a resolved send`).not.toBeNull();
                acked.set(Number(records[i]!.headers["msgx-event-id"]), p!);
              });
              break;
            } catch (e) {
              if (!isMsgxError(e) || !e.retriable) throw e;
              failedSends++;
              if (/no acknowledgement/.test(e.message)) partlyAcknowledged++;
              await sleep(200);
            }
          }
        }
      };

      await sendCalls(CALLS_PER_PHASE);
      const leader = Number(await clusterCommand(["leader", msgTopic, "0"]));
      expect([1, 2, 3]).toContain(leader);
      // kill -9 while a call is on its way to the leader.
      const sending = sendCalls(1);
      await clusterCommand(["kill", String(leader)]);
      const killedAt = Date.now();
      await sending;
      // The first call issued after the kill, resent until acknowledged: how long producing stalled.
      await sendCalls(1);
      const resumeMs = Date.now() - killedAt;
      // Keep producing until another broker leads partition 0, then some more.
      let newLeader = leader;
      const moveDeadline = Date.now() + 60_000;
      while (newLeader === leader && Date.now() < moveDeadline) {
        await sendCalls(1);
        newLeader = Number(await clusterCommand(["leader", msgTopic, "0"]));
      }
      expect(newLeader).not.toBe(leader);
      await sendCalls(CALLS_PER_PHASE);
      // Restart it while producing; `restart` returns once every partition's ISR is full again.
      const restarting = clusterCommand(["restart", String(leader)]);
      let restarted = false;
      void restarting.then(() => (restarted = true), () => (restarted = true));
      while (!restarted) {
        await sendCalls(1);
        await sleep(50);
      }
      await restarting;
      await sendCalls(CALLS_PER_PHASE);
      const after = await admin.fetchTopicMetadata({ topics: [msgTopic] });
      for (const p of after.topics[0]!.partitions) expect(p.isr, `isr of ${msgTopic}/${p.partitionId} after the rejoin`).toHaveLength(3);

      // Read everything back: the broker holds the acknowledged copy of each record where the port said.
      const count = await appendedCount(admin, msgTopic);
      const read = await consume(client, [msgTopic], count, 120_000);
      const at = new Map(read.map((m) => [`${m.partition}:${m.offset}`, Number(String(m.headers?.["msgx-event-id"]))]));
      for (const [eventId, p] of acked) expect(at.get(`${p.partition}:${p.offset}`), `event ${eventId} at ${p.partition}:${p.offset}`).toBe(eventId);

      // Deduplicated by event id (ConsumerDedupe's rule): every record exactly once, per key in send order.
      const firstSeen: { key: string; eventId: number }[] = [];
      const seen = new Set<number>();
      for (const m of read) {
        const eventId = Number(String(m.headers?.["msgx-event-id"]));
        if (seen.has(eventId)) continue;
        seen.add(eventId);
        firstSeen.push({ key: m.key ?? "", eventId });
      }
      const perKey = (list: readonly { key: string; eventId: number }[]) => {
        const byKey = new Map<string, number[]>();
        for (const { key, eventId } of list) byKey.set(key, [...(byKey.get(key) ?? []), eventId]);
        return byKey;
      };
      const wanted = sent.map((r) => ({ key: r.key, eventId: Number(r.headers["msgx-event-id"]) }));
      expect(seen.size).toBe(sent.length);
      expect(perKey(firstSeen)).toEqual(perKey(wanted));
      expect(acked.size).toBe(sent.length);
      console.info(
        `[kafka cluster] ${sent.length} records in ${sent.length / PER_CALL} calls; leader of partition 0 was node ${leader}, then node ${newLeader}; ` +
          `first call after the kill acknowledged in ${resumeMs} ms; ${failedSends} failed sends resent (${partlyAcknowledged} of them resolved by kafkajs with a partition unacknowledged); ${read.length} records read, ${read.length - seen.size} duplicates (repeated event ids), 0 lost, 0 reordered`,
      );
    } finally {
      await port.disconnect();
      await admin.deleteTopics({ topics: [msgTopic, schdTopic] }).catch(() => undefined);
      await admin.disconnect();
    }
  }, 400_000);
});
