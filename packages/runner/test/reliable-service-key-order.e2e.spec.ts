/**
 * Issue 36 item 3 as a service, on real PostgreSQL and Kafka: the built `msgx run` with a queue
 * ordered by key (`reliable.queues.<q>.orderByKey`), a producer process with no msgx code (HTTP
 * only) interleaving three keys, and a plain kafkajs consumer acknowledging over HTTP that rejects
 * one key's first message until it is DEAD. NOT RUN without PostgreSQL or Kafka (a failure under MSGX_REQUIRE_SERVICES=1).
 */
import { describe, it } from "vitest";
import { keyOrderOverHttp } from "./reliable-service/rm-key-order-flow.js";
import { pgKafkaRmWorld } from "./reliable-service/pg-kafka-world.js";

const suite = "reliable-message service over HTTP: per-key order";
const { available, world } = await pgKafkaRmWorld(suite, "rmkey");

describe.skipIf(!available)(suite, () => {
  it("three keys interleaved: a key's messages are read one at a time in confirm order; a DEAD first message holds its key (GET shows held behind it) while the other keys flow, until an operator settles it", async () => {
    await keyOrderOverHttp(world());
  }, 180_000);
});
