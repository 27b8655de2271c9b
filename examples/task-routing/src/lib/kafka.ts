import { kafkajsLogCreator } from "@msgx/adapters-kafka";
import { silentLogger, type Logger } from "@msgx/core";
import kafkajs, { type Kafka } from "kafkajs";

const { Kafka: KafkaClient, logLevel } = kafkajs;

/** A kafkajs client whose log lines go to `logger` (warnings and up). */
export const kafkaClient = (brokers: readonly string[], clientId: string, logger: Logger = silentLogger): Kafka =>
  new KafkaClient({ clientId, brokers: [...brokers], connectionTimeout: 3_000, logLevel: logLevel.WARN, logCreator: kafkajsLogCreator(logger) });

/** Resolves when the first broker answers a metadata request; the integration suite's probe. */
export async function probeKafka(brokers: readonly string[]): Promise<void> {
  const admin = new KafkaClient({ clientId: "msgx-probe", brokers: [...brokers], connectionTimeout: 2_000, retry: { retries: 0 }, logLevel: logLevel.NOTHING }).admin();
  try {
    await admin.connect();
    await admin.describeCluster();
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}
