import { createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MsgxError } from "@msgx/core";
import { KafkaDeliveryPort } from "@msgx/adapters-kafka";

// No broker needed: a closed port and a local server that accepts connections and never answers.
describe("KafkaDeliveryPort during an outage", () => {
  let blackhole: Server;
  let blackholeAddress = "";
  const sockets = new Set<Socket>();
  const record = { topic: "msg", key: "FL-1", value: "{}", headers: {} };

  beforeAll(async () => {
    blackhole = createServer((s) => {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
    });
    await new Promise<void>((resolve) => blackhole.listen(0, "127.0.0.1", resolve));
    const address = blackhole.address();
    if (address === null || typeof address === "string") throw new Error("no address");
    blackholeAddress = `127.0.0.1:${address.port}`;
  });

  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => blackhole.close(resolve));
  });

  const failure = async (port: KafkaDeliveryPort, signal?: AbortSignal) => {
    const t0 = performance.now();
    const error = await port.send([record], signal).then(
      () => undefined,
      (e: unknown) => e,
    );
    await port.disconnect();
    return { error, ms: performance.now() - t0 };
  };

  it("a closed port surfaces as DEPENDENCY_UNAVAILABLE within seconds", async () => {
    const { error, ms } = await failure(new KafkaDeliveryPort({ brokers: ["127.0.0.1:1"] }));
    expect(error).toBeInstanceOf(MsgxError);
    expect((error as MsgxError).kind).toBe("DEPENDENCY_UNAVAILABLE");
    expect((error as MsgxError).retriable).toBe(true);
    expect(ms).toBeLessThan(10_000);
  });

  it("a broker that never answers surfaces as DEPENDENCY_UNAVAILABLE after the request timeout", async () => {
    const port = new KafkaDeliveryPort({ brokers: [blackholeAddress], requestTimeoutMs: 1_000, ackTimeoutMs: 500 });
    const { error, ms } = await failure(port);
    expect((error as MsgxError).kind).toBe("DEPENDENCY_UNAVAILABLE");
    expect(ms).toBeLessThan(30_000);
  });

  it("the whole send is bounded by sendTimeoutMs whatever kafkajs does", async () => {
    const port = new KafkaDeliveryPort({ brokers: [blackholeAddress], requestTimeoutMs: 60_000, sendTimeoutMs: 1_500 });
    const { error, ms } = await failure(port);
    expect((error as MsgxError).kind).toBe("DEPENDENCY_UNAVAILABLE");
    expect((error as MsgxError).message).toMatch(/no answer within 1500 ms/);
    expect(ms).toBeGreaterThanOrEqual(1_400);
    expect(ms).toBeLessThan(5_000);
  });

  it("an aborted signal rejects at once with its reason", async () => {
    const port = new KafkaDeliveryPort({ brokers: [blackholeAddress], requestTimeoutMs: 60_000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("shutting down")), 300);
    const { error, ms } = await failure(port, controller.signal);
    expect((error as Error).message).toBe("shutting down");
    expect(ms).toBeLessThan(3_000);
  });
});
