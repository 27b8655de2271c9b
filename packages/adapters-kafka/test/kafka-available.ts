import { connect } from "node:net";
import { gateService } from "@msgx/core/testing";

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
 * Probes the first broker with a TCP connect. When it does not answer, the suite is NOT RUN, or
 * fails under `MSGX_REQUIRE_SERVICES=1` (CI) — the rule every suite shares (`gateService`).
 */
export async function kafkaAvailability(suite: string): Promise<KafkaAvailability> {
  const brokers = kafkaBrokers();
  const first = brokers[0] ?? "127.0.0.1:9092";
  const gate = await gateService(`the Kafka broker at ${first}`, suite, async () => {
    const reason = await probe(first, 2_000);
    if (reason !== undefined) throw new Error(`${reason} (\`scripts/kafka start\` starts one)`);
  });
  return gate.available ? { available: true, brokers } : { available: false, brokers, reason: gate.reason };
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
