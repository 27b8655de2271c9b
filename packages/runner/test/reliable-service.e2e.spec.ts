/**
 * The reliable-message service as a service (issue 20), on real PostgreSQL and Kafka: the built
 * `msgx run`, and beside it a producer, the producer's check-back endpoint and consumers, each its
 * own Node process with no msgx code — HTTP (fetch, node:http) and a plain kafkajs consumer
 * (test/reliable-service/*.mjs). The flows are in test/reliable-service/rm-flows.ts; the broker
 * outage, which stops the shared broker, is reliable-service-broker-outage.e2e.spec.ts.
 *
 * The checker's outage lasts a minute, as the issue asks (MSGX_TEST_RM_CHECKER_DOWN_MS shortens it).
 */
import { describe, it } from "vitest";
import * as flows from "./reliable-service/rm-flows.js";
import { deadMessageLineage } from "./reliable-service/rm-lineage-flow.js";
import { pgKafkaRmWorld } from "./reliable-service/pg-kafka-world.js";

const CHECKER_DOWN_MS = Number(process.env["MSGX_TEST_RM_CHECKER_DOWN_MS"] ?? 60_000);
const suite = "reliable-message service over HTTP on PostgreSQL and Kafka";
const { available, world } = await pgKafkaRmWorld(suite, "rmsvc");

describe.skipIf(!available)(suite, () => {
  it("prepare + confirm: delivered once to a plain kafkajs consumer, acknowledged over HTTP; the id is not reused", async () => {
    await flows.preparedAndConfirmedDeliveredOnce(world());
  }, 120_000);

  it("prepare then silence: the hosted check-back asks the producer's checker (confirm: delivered; cancel: CANCELLED, never delivered)", async () => {
    await flows.silentProducerResolvedByCheckBack(world());
  }, 120_000);

  it(`a checker answering 500 for ${CHECKER_DOWN_MS / 1000} s: the message is kept, asked with backoff and alerted, then confirmed and delivered`, async () => {
    const seen = await flows.failingCheckerNeverLosesTheMessage(world(), CHECKER_DOWN_MS);
    console.info(`[${suite}] checker down ${CHECKER_DOWN_MS} ms: ${seen.calls} check-backs, longest gap ${seen.maxGapMs} ms`);
  }, CHECKER_DOWN_MS + 120_000);

  it("a handler failing past its budget: DEAD, on rmq-dlq.<queue>, replayed by POST /rm/v1/queues/<queue>/replay-dead and acknowledged", async () => {
    await flows.poisonMessageDeadLetteredAndReplayed(world());
  }, 120_000);

  it("a consumer that never acknowledges: DEAD after maxSends, resent by queue (admin resend-dead) and acknowledged", async () => {
    await flows.unacknowledgedResentByQueue(world());
  }, 120_000);

  it("idempotent prepare, confirm and cancel; 409 for a cancelled or taken id, 404, 400, 401", async () => {
    await flows.idempotentAndRefusing(world());
  }, 60_000);

  it("lineage: why a message is DEAD — prepare and confirm (their HTTP callers), each reject and redelivery, the last reject; over /admin and msgx reliable lineage", async () => {
    await deadMessageLineage(world());
  }, 120_000);
});
