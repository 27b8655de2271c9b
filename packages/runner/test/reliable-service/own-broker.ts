/**
 * A Kafka broker a suite owns: a second single node of `scripts/kafka` with its own MSGX_KAFKA_HOME
 * and ports, never the shared one on 9092, so stopping or freezing it disturbs no other suite.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { gateService } from "@msgx/core/testing";
import type pg from "pg";
import { freePort } from "../free-port.js";
import { spawnRunner, type RunnerProcess } from "../runner-process.js";

const run = promisify(execFile);
const REPO = fileURLToPath(new URL("../../../../", import.meta.url));
const KAFKA = join(REPO, "scripts", "kafka");

export interface OwnBroker {
  /** `127.0.0.1:<port>`. */
  readonly brokers: string;
  /** `scripts/kafka start`: returns once it answers. */
  start(): Promise<void>;
  /** `scripts/kafka stop`: SIGTERM, wait, SIGKILL. */
  stop(): Promise<void>;
  /** The running broker's pid (its pid file). */
  pid(): number;
  /** Stops it if running and removes its home (the shared jars stay). */
  remove(): Promise<void>;
}

/** Gates a suite on java and mvn (what `scripts/kafka` needs): NOT RUN without them. */
export const gateOwnBroker = (suite: string) =>
  gateService("a Kafka broker of the suite's own (java and mvn for scripts/kafka)", suite, async () => {
    await run("sh", ["-c", "command -v java && command -v mvn"]);
  });

/** Prepares a broker of the suite's own (its jars fetched, not started) on free ports. */
export async function ownBroker(suite: string): Promise<OwnBroker> {
  const home = mkdtempSync(join(tmpdir(), "msgx-own-kafka-"));
  const [port, controller] = [await freePort(), await freePort()];
  const env = { ...process.env, MSGX_KAFKA_HOME: home, MSGX_KAFKA_PORT: String(port), MSGX_KAFKA_CONTROLLER_PORT: String(controller) };
  const kafka = (cmd: string, timeoutMs = 300_000) => run(KAFKA, [cmd], { env, timeout: timeoutMs, encoding: "utf8" });
  // The jars of this checkout's broker, when it has them, spare a fetch; else scripts/kafka fetches.
  const shared = join(REPO, ".kafka", "lib");
  if (existsSync(join(shared, ".complete"))) symlinkSync(shared, join(home, "lib"));
  await kafka("fetch", 900_000);
  return {
    brokers: `127.0.0.1:${port}`,
    start: async () => void (await kafka("start")),
    stop: async () => void (await kafka("stop", 120_000)),
    pid: () => Number(readFileSync(join(home, "kafka.pid"), "utf8").trim()),
    remove: async () => {
      await kafka("stop", 120_000).catch((e: unknown) => console.error(`[${suite}] own broker stop:`, e));
      // The link to the shared jars goes, not the jars.
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/**
 * The built `msgx run` with `config` on PostgreSQL schema `tag` and `brokers`, its topics named
 * after `tag`, data under `dir`; it must start whether the broker answers or not.
 */
export function spawnTaggedRunner(config: string, pgUrl: string, tag: string, brokers: string, dir: string): Promise<RunnerProcess> {
  return spawnRunner(["-c", config, "--pg", pgUrl, "--kafka", brokers, "--data-dir", join(dir, "data")], {
    MSGX_PG_SCHEMA: tag,
    MSGX_KAFKA_MSG_TOPIC: `msg_${tag}`,
    MSGX_KAFKA_SCHD_TOPIC: `schd_${tag}`,
    MSGX_KAFKA_REF_TOPIC: `ref_${tag}`,
  }, 180_000);
}

/** The end of such a suite: its broker removed, its schema dropped, its client closed, `dir` removed. */
export async function removeSuiteState(broker: OwnBroker | undefined, pgClient: pg.Client, tag: string, dir: string): Promise<void> {
  await broker?.remove();
  await pgClient.query(`DROP SCHEMA IF EXISTS ${tag} CASCADE`).catch(() => undefined);
  await pgClient.end().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
}
