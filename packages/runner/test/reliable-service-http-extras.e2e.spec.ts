/**
 * Issue 36 items 5 and 2 as a service, on real PostgreSQL and Kafka: the built `msgx run` with
 * `reliable.topicPrefix` set, a producer process with no msgx code (HTTP only) that direct-sends,
 * saves-and-sends, acknowledges a batch, deletes as an operator and delays deliveries, and a plain
 * kafkajs reader (acknowledging over HTTP) of the prefixed topic. NOT RUN without PostgreSQL or Kafka (a failure under MSGX_REQUIRE_SERVICES=1).
 */
import { describe, it } from "vitest";
import * as flows from "./reliable-service/rm-flows.js";
import { pgKafkaRmWorld } from "./reliable-service/pg-kafka-world.js";

const PREFIX = "msgx-ext.";
const suite = "reliable-message service over HTTP: direct send, batch ack, audited delete, topic prefix";
const { available, world } = await pgKafkaRmWorld(suite, "rmext", undefined, { topicPrefix: PREFIX, dlqTopicPrefix: "msgx-ext-dlq." });

describe.skipIf(!available)(suite, () => {
  it(`direct sends and saves-and-sends on ${PREFIX}<queue>; one batch acknowledges the stored ones, each refusal answered per id; an operator's delete is audited`, async () => {
    await flows.directSendBatchAckAndDelete(world(), PREFIX);
  }, 180_000);

  it("delayed delivery: delayMs on a save-and-send, deliverAt on a confirm, delayMs on a prepare confirmed without a time; held until then, delivered once, acknowledged", async () => {
    await flows.delayedDeliveryOverHttp(world(), PREFIX);
  }, 180_000);
});
