/**
 * Issue 36 item 1 as a service, on real PostgreSQL and Kafka: the built `msgx run` with a queue of
 * three subscriptions, one plain kafkajs process per subscription (no msgx code) acknowledging over
 * HTTP, a producer process and an operator's resend (test/reliable-service/rm-fan-out-flow.ts);
 * and a queue both ordered by key and subscribed (rm-ordered-fan-out-flow.ts).
 * NOT RUN without PostgreSQL or Kafka (a failure under MSGX_REQUIRE_SERVICES=1).
 */
import { describe, it } from "vitest";
import { fanOutToThreeSubscriptions } from "./reliable-service/rm-fan-out-flow.js";
import { orderedQueueWithSubscriptions } from "./reliable-service/rm-ordered-fan-out-flow.js";
import { pgKafkaRmWorld } from "./reliable-service/pg-kafka-world.js";

const suite = "reliable-message service over HTTP: subscriptions (fan-out)";
const { available, world } = await pgKafkaRmWorld(suite, "rmfan");

describe.skipIf(!available)(suite, () => {
  it("three subscriptions: slow, rejecting once, DEAD then resent by an operator; the others untouched; ACKNOWLEDGED only after all three acknowledged", async () => {
    await fanOutToThreeSubscriptions(world());
  }, 180_000);

  it("a queue ordered by key and subscribed: the key's head fans out; the next message is held until every subscription acknowledged the head (mail's DEAD delivery resent by an operator)", async () => {
    await orderedQueueWithSubscriptions(world());
  }, 180_000);
});
