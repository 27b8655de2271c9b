import { describe, expect, it } from "vitest";
import { MsgxError } from "@msgx/core";
import { clusterReplication, replicationForBrokers } from "@msgx/adapters-kafka";

describe("replicationForBrokers", () => {
  it.each([
    [1, 1, 1],
    [2, 2, 1],
    [3, 3, 2],
    [5, 3, 2],
  ])("with %i broker(s): replication factor %i, min.insync.replicas %i", (brokers, replicationFactor, minInsyncReplicas) => {
    expect(replicationForBrokers(brokers)).toEqual({ replicationFactor, minInsyncReplicas });
  });

  it("takes the operator's settings over the cluster's size, min ISR following an overridden factor", () => {
    expect(replicationForBrokers(1, { replicationFactor: 3 })).toEqual({ replicationFactor: 3, minInsyncReplicas: 2 });
    expect(replicationForBrokers(5, { replicationFactor: 5, minInsyncReplicas: 3 })).toEqual({ replicationFactor: 5, minInsyncReplicas: 3 });
    expect(replicationForBrokers(3, { minInsyncReplicas: 1 })).toEqual({ replicationFactor: 3, minInsyncReplicas: 1 });
  });

  it.each([
    ["min ISR above the factor (every produce would fail)", { replicationFactor: 2, minInsyncReplicas: 3 }],
    ["a factor of 0", { replicationFactor: 0 }],
    ["min ISR 0", { minInsyncReplicas: 0 }],
  ])("refuses %s with CONFIG", (_name, overrides) => {
    let error: unknown;
    try {
      replicationForBrokers(3, overrides);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(MsgxError);
    expect((error as MsgxError).kind).toBe("CONFIG");
  });
});

describe("clusterReplication", () => {
  it("counts the brokers the cluster registers", async () => {
    const admin = { describeCluster: async () => ({ brokers: [1, 2, 3].map((nodeId) => ({ nodeId, host: "h", port: 9092 })), controller: 1, clusterId: "c" }) };
    expect(await clusterReplication(admin)).toEqual({ brokers: 3, replicationFactor: 3, minInsyncReplicas: 2 });
  });

  it("maps a broker failure at the boundary", async () => {
    const admin = { describeCluster: async () => Promise.reject(Object.assign(new Error("Connection error: connect ECONNREFUSED"), { name: "KafkaJSConnectionError", retriable: true })) };
    await expect(clusterReplication(admin)).rejects.toMatchObject({ kind: "DEPENDENCY_UNAVAILABLE" });
  });
});
