import type { Kafka } from "kafkajs";

/**
 * Calls `each` with every cluster `kafka` creates from now on (kafkajs makes one per producer,
 * consumer and admin), through kafkajs' private cluster factory: the `private:Kafka:createCluster`
 * symbol of the client instance. This changes that client only, never kafkajs' classes. Returns
 * false, changing nothing, when the installed kafkajs has no such factory (the stack pins 2.2.4,
 * STACK.md).
 */
export function onEachCluster(kafka: Kafka, each: (cluster: unknown) => void): boolean {
  const client = kafka as unknown as Record<symbol, unknown>;
  const factory = Object.getOwnPropertySymbols(kafka).find((s) => s.description === "private:Kafka:createCluster");
  const create = factory === undefined ? undefined : client[factory];
  if (factory === undefined || typeof create !== "function") return false;
  client[factory] = (...args: unknown[]): unknown => {
    const cluster: unknown = Reflect.apply(create, kafka, args);
    each(cluster);
    return cluster;
  };
  return true;
}
