import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { decideGate, gateService, servicesRequired } from "@msgx/core/testing";

const run = promisify(execFile);
const SCRIPT = fileURLToPath(new URL("../../../scripts/kafka", import.meta.url));

/** The three nodes `scripts/kafka cluster` runs; node n is broker id n. */
export const CLUSTER_BROKERS: readonly string[] = ["127.0.0.1:19092", "127.0.0.1:19192", "127.0.0.1:19292"];

/** Runs `scripts/kafka cluster <args>` and returns its stdout; a non-zero exit throws with its stderr. */
export async function clusterCommand(args: readonly string[], timeoutMs = 200_000): Promise<string> {
  try {
    const { stdout } = await run(SCRIPT, ["cluster", ...args], { timeout: timeoutMs, encoding: "utf8" });
    return stdout.trim();
  } catch (e) {
    const err = e as { stderr?: string; message?: string };
    throw new Error(`scripts/kafka cluster ${args.join(" ")} failed: ${(err.stderr ?? "").trim() || err.message}`);
  }
}

async function allNodesRunning(): Promise<boolean> {
  try {
    await run(SCRIPT, ["cluster", "status"], { timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}

export interface ClusterGate {
  readonly available: boolean;
  readonly reason: string;
  /** This suite started the cluster (so it stops it when done); a running one is left running. */
  readonly startedHere: boolean;
}

/**
 * Whether a suite may use the three-broker cluster of this checkout's `scripts/kafka`, and kill and
 * restart its nodes. It runs when all three nodes are running; otherwise it starts them when
 * `MSGX_TEST_KAFKA_CLUSTER=1` (a `MSGX_TEST_` name: the runners that e2e suites spawn inherit the
 * environment and refuse unknown `MSGX_` settings) or `MSGX_REQUIRE_SERVICES=1` (CI: the suite then costs the cluster's
 * start, about 1.1 GB of memory while it runs, and stops it afterwards), and is NOT RUN with the
 * reason otherwise. A start that fails is NOT RUN, or a failure under `MSGX_REQUIRE_SERVICES=1`.
 */
export async function gateKafkaCluster(suite: string): Promise<ClusterGate> {
  if (await allNodesRunning()) return { available: true, reason: "", startedHere: false };
  if (process.env["MSGX_TEST_KAFKA_CLUSTER"] !== "1" && !servicesRequired()) {
    const decision = decideGate(suite, "the three-broker Kafka cluster is not running (`scripts/kafka cluster start`, or MSGX_TEST_KAFKA_CLUSTER=1 lets the suite start and stop it)", false);
    if (decision.verdict === "not-run") console.warn(decision.line);
    return { available: false, reason: decision.verdict === "not-run" ? decision.reason : "", startedHere: false };
  }
  const gate = await gateService("the three-broker Kafka cluster", suite, async () => void (await clusterCommand(["start"])));
  return { ...gate, startedHere: gate.available };
}
