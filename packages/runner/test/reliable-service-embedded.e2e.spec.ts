/**
 * The reliable-message service as a service (issue 20) on the embedded default: the built
 * `msgx run` with nothing but a data directory (PGlite state, topics as JSON-lines files), and
 * beside it a producer, the producer's checker and consumers, each its own Node process with no
 * msgx code; a consumer reads `<data-dir>/events/rmq.<queue>.jsonl` (and `rmq-dlq.<queue>.jsonl`).
 * Same flows as reliable-service.e2e.spec.ts (test/reliable-service/rm-flows.ts), the checker's
 * outage shortened to 10 s (the real-infrastructure suite runs the minute), no broker to stop.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, it } from "vitest";
import { spawnRunner, type RunnerProcess } from "./runner-process.js";
import * as flows from "./reliable-service/rm-flows.js";
import { fanOutToThreeSubscriptions } from "./reliable-service/rm-fan-out-flow.js";
import { deadMessageLineage } from "./reliable-service/rm-lineage-flow.js";
import { keyOrderOverHttp } from "./reliable-service/rm-key-order-flow.js";
import { startChecker, type Checker, type Consumer } from "./reliable-service/rm-processes.js";

const CHECKER_DOWN_MS = 10_000;
const dir = mkdtempSync(join(tmpdir(), "msgx-rm-embedded-"));
const dataDir = join(dir, "data");
let runner: RunnerProcess | undefined;
let checker: Checker | undefined;
const consumers: Consumer[] = [];
const q = flows.rmQueues("emb");
const world = (): flows.RmWorld => ({
  url: runner!.url,
  checker: checker!,
  q,
  consumers,
  source: (topic) => ({ jsonl: join(dataDir, "events", `${topic}.jsonl`) }),
});

beforeAll(async () => {
  checker = await startChecker();
  const config = join(dir, "msgx.json");
  writeFileSync(config, JSON.stringify(flows.rmConfig(q, checker)));
  runner = await spawnRunner(["-c", config, "--data-dir", dataDir]);
}, 120_000);
afterEach(async () => {
  await Promise.all(consumers.splice(0).map((c) => c.stop()));
});
afterAll(async () => {
  if (runner) {
    runner.child.kill("SIGTERM");
    const code = await runner.exited;
    if (code !== 0) console.error(`[reliable service embedded] runner exited ${code}:\n${runner.output().slice(-5_000)}`);
  }
  await checker?.stop();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe("reliable-message service over HTTP on the embedded default (PGlite + JSONL)", () => {
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
});
