/**
 * Whether a suite may stop and start Kafka: only the broker this checkout's `scripts/kafka` started
 * (its pid file names a live `kafka.Kafka` process). Runs against a scratch `MSGX_KAFKA_HOME`, so
 * the real broker, whoever owns it, is never touched.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { checkControl, gateControl } from "../../../bench/fault/services.js";

describe("checkControl(kafka)", () => {
  let home = "";
  let fakeBroker: ChildProcess | undefined;
  afterEach(() => {
    fakeBroker?.kill("SIGKILL");
    fakeBroker = undefined;
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
    if (home !== "") rmSync(home, { recursive: true, force: true });
  });
  const scratchHome = () => {
    home = mkdtempSync(join(tmpdir(), "msgx-kafka-home-"));
    vi.stubEnv("MSGX_KAFKA_HOME", home);
  };

  it("refuses a broker this checkout's scripts/kafka did not start", async () => {
    scratchHome();
    await expect(checkControl("kafka")).rejects.toThrow("this checkout's scripts/kafka broker is not running");
  });

  it("accepts the broker named by scripts/kafka's pid file", async () => {
    scratchHome();
    // A process whose command line reads like this home's broker (its main class and config file),
    // which is what scripts/kafka checks.
    fakeBroker = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)", "kafka.Kafka", join(home, "server.properties")], { stdio: "ignore" });
    writeFileSync(join(home, "kafka.pid"), String(fakeBroker.pid));
    await expect(checkControl("kafka")).resolves.toBeUndefined();
  });

  it("gates a suite: NOT RUN when not owned, a failure under MSGX_REQUIRE_SERVICES=1", async () => {
    scratchHome();
    vi.spyOn(console, "warn").mockImplementation(() => undefined);
    vi.stubEnv("MSGX_REQUIRE_SERVICES", "");
    await expect(gateControl(["kafka"], "s")).resolves.toMatchObject({ available: false });
    vi.stubEnv("MSGX_REQUIRE_SERVICES", "1");
    await expect(gateControl(["kafka"], "s")).rejects.toThrow("MSGX_REQUIRE_SERVICES=1 but cannot stop and start kafka: kafka: this checkout's");
  });
});
