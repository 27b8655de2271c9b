/**
 * The reliable-message service through a broker outage (issue 20), on real PostgreSQL and Kafka:
 * the broker stopped for 15 s (MSGX_TEST_RM_BROKER_DOWN_MS), longer than the whole resend schedule
 * (11 s). It stops the shared broker, so it runs in the exclusive project (vitest.config.ts), and
 * it needs this checkout's scripts/kafka broker: NOT RUN otherwise (a failure under
 * MSGX_REQUIRE_SERVICES=1).
 */
import { describe, expect, it } from "vitest";
import { gateControl, startService, stopService } from "../../../bench/fault/services.js";
import * as flows from "./reliable-service/rm-flows.js";
import { pgKafkaRmWorld } from "./reliable-service/pg-kafka-world.js";

const BROKER_DOWN_MS = Number(process.env["MSGX_TEST_RM_BROKER_DOWN_MS"] ?? 15_000);
const suite = "reliable-message service over HTTP on PostgreSQL and Kafka, through a broker outage";
const brokerControl = await gateControl(["kafka"], suite);
// Whatever happened, the broker is left running.
const { available, world } = await pgKafkaRmWorld(suite, "rmout", async () => {
  if (brokerControl.available) await startService("kafka").catch((e: unknown) => console.error(`[${suite}] could not start kafka:`, e));
});

describe.skipIf(!available || !brokerControl.available)(suite, () => {
  it(`the broker stopped for ${BROKER_DOWN_MS / 1000} s, longer than the resend schedule: zero DEAD, every message delivered after it returns`, async () => {
    const t = await flows.brokerOutageMakesNothingDead(world(), { stop: () => stopService("kafka"), start: () => startService("kafka") }, BROKER_DOWN_MS);
    console.info(`[${suite}] broker outage: stop ${t.stopMs} ms, down ${t.downMs} ms, consumer ready ${t.readyMs} ms and all acknowledged ${t.deliveredMs} ms after the start command`);
    expect(t.downMs).toBeGreaterThanOrEqual(BROKER_DOWN_MS);
  }, BROKER_DOWN_MS + 300_000);
});
