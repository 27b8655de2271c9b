/**
 * The reliable-message service as a service (issue 20) on the embedded default: the built
 * `msgx run` with nothing but a data directory (PGlite state, topics as JSON-lines files), and
 * beside it a producer, the producer's checker and consumers, each its own Node process with no
 * msgx code; a consumer reads `<data-dir>/events/rmq.<queue>.jsonl` (and `rmq-dlq.<queue>.jsonl`).
 * Same flows as reliable-service.e2e.spec.ts (test/reliable-service/rm-flows.ts), the checker's
 * outage shortened to 10 s (the real-infrastructure suite runs the minute), no broker to stop.
 * A second runner with `reliable.topicPrefix` set runs issue 36's items 5 and 2 (the flows of
 * reliable-service-http-extras.e2e.spec.ts) on `<data-dir>/events/<prefix><queue>.jsonl`.
 */
import { describe, it } from "vitest";
import * as flows from "./reliable-service/rm-flows.js";
import { embeddedRmWorld } from "./reliable-service/embedded-world.js";
import { fanOutToThreeSubscriptions } from "./reliable-service/rm-fan-out-flow.js";
import { deadMessageLineage } from "./reliable-service/rm-lineage-flow.js";
import { keyOrderOverHttp } from "./reliable-service/rm-key-order-flow.js";
import { orderedQueueWithSubscriptions } from "./reliable-service/rm-ordered-fan-out-flow.js";

const CHECKER_DOWN_MS = 10_000;
const SUITE = "reliable-message service over HTTP on the embedded default (PGlite + JSONL)";
/** The prefixed block's topics: its files are `<data-dir>/events/<PREFIX><queue>.jsonl`. */
const PREFIX = "msgx-ext.";

describe(SUITE, () => {
  const world = embeddedRmWorld(SUITE, "emb");
  it("prepare + confirm: delivered once to a reader of the topic file, acknowledged over HTTP; the id is not reused", async () => {
    await flows.preparedAndConfirmedDeliveredOnce(world());
  }, 120_000);

  it("prepare then silence: the hosted check-back asks the producer's checker (confirm: delivered; cancel: CANCELLED, never delivered)", async () => {
    await flows.silentProducerResolvedByCheckBack(world());
  }, 120_000);

  it(`a checker answering 500 for ${CHECKER_DOWN_MS / 1000} s: kept, asked with backoff and alerted, then confirmed and delivered`, async () => {
    await flows.failingCheckerNeverLosesTheMessage(world(), CHECKER_DOWN_MS);
  }, CHECKER_DOWN_MS + 120_000);

  it("a handler failing past its budget: DEAD, in rmq-dlq.<queue>.jsonl, replayed by POST /rm/v1/queues/<queue>/replay-dead and acknowledged", async () => {
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
  it("per-key order: a key's messages are read one at a time in confirm order; a DEAD first message holds its key while the other keys flow", async () => {
    await keyOrderOverHttp(world());
  }, 180_000);

  it("three subscriptions on rmq-sub.<queue>.<subscription>.jsonl: slow, rejecting once, DEAD then resent by an operator; ACKNOWLEDGED only after all three acknowledged", async () => {
    await fanOutToThreeSubscriptions(world());
  }, 180_000);

  it("a queue ordered by key and subscribed: the key's head fans out; the next message is held until every subscription acknowledged the head (mail's DEAD delivery resent by an operator)", async () => {
    await orderedQueueWithSubscriptions(world());
  }, 180_000);
});

describe(`${SUITE}, reliable.topicPrefix ${PREFIX}`, () => {
  const world = embeddedRmWorld(`${SUITE}, prefixed`, "embext", { topicPrefix: PREFIX, dlqTopicPrefix: "msgx-ext-dlq." });

  it(`direct sends and saves-and-sends on ${PREFIX}<queue>.jsonl; one batch acknowledges the stored ones, each refusal answered per id; an operator's delete is audited`, async () => {
    await flows.directSendBatchAckAndDelete(world(), PREFIX);
  }, 180_000);

  it("delayed delivery: delayMs on a save-and-send, deliverAt on a confirm, delayMs on a prepare confirmed without a time; held until then, delivered once, acknowledged", async () => {
    await flows.delayedDeliveryOverHttp(world(), PREFIX);
  }, 180_000);
});
