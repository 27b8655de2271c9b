import { connect } from "node:net";

/** Whether the integration broker answers, and why not when it does not. */
export interface KafkaAvailability {
  readonly available: boolean;
  readonly brokers: readonly string[];
  readonly reason?: string;
}

/** `MSGX_KAFKA_BROKERS` (comma separated) or the `scripts/kafka` broker. */
export const kafkaBrokers = (): string[] =>
  (process.env.MSGX_KAFKA_BROKERS ?? "127.0.0.1:9092")
    .split(",")
    .map((b) => b.trim())
    .filter((b) => b !== "");

/**
 * Probes the first broker with a TCP connect. When it does not answer, prints plainly that
 * `suite` did not run and why, and throws instead when `MSGX_REQUIRE_SERVICES=1` (CI), so a
 * missing broker can never pass as a green run.
 */
export async function kafkaAvailability(suite: string): Promise<KafkaAvailability> {
  const brokers = kafkaBrokers();
  const first = brokers[0] ?? "127.0.0.1:9092";
  const reason = await probe(first, 2_000);
  if (reason === undefined) return { available: true, brokers };
  const message = `${suite}: NOT RUN: no Kafka broker at ${first} (${reason}). Start one with \`scripts/kafka start\`.`;
  if (process.env.MSGX_REQUIRE_SERVICES === "1") {
    throw new Error(`${message} MSGX_REQUIRE_SERVICES=1, so this is a failure.`);
  }
  console.warn(message);
  return { available: false, brokers, reason };
}

function probe(hostPort: string, timeoutMs: number): Promise<string | undefined> {
  const i = hostPort.lastIndexOf(":");
  const host = hostPort.slice(0, i);
  const port = Number(hostPort.slice(i + 1));
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (reason: string | undefined) => {
      socket.destroy();
      resolve(reason);
    };
    socket.setTimeout(timeoutMs, () => done(`no answer within ${timeoutMs} ms`));
    socket.once("connect", () => done(undefined));
    socket.once("error", (e: NodeJS.ErrnoException) => done(e.code ?? e.message));
  });
}
