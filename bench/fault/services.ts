/**
 * Stops and starts the local services for the fault battery's outages. Each outage is short and
 * always ends with the service started again and answering (`outage` restarts it in `finally`):
 * other suites use the same services.
 *
 * - PostgreSQL: `pg_ctlcluster --skip-systemctl-redirect <version> main stop|start` (fast shutdown:
 *   every session is terminated).
 * - MariaDB: `mysqladmin -uroot shutdown`; `start-stop-daemon --start --background --exec /usr/sbin/mariadbd`.
 * - Kafka: `scripts/kafka stop|start` (a controlled shutdown; start waits until the broker answers).
 *
 * Every suite that uses these gates itself with `gateControl` first.
 */
import { execFile } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { gateServiceControl, type ServiceGate } from "@msgx/core/testing";
import { REPO, sleep, URLS } from "./infra.js";

const run = promisify(execFile);
export type Service = "postgres" | "mariadb" | "kafka";

async function sh(cmd: string, args: readonly string[], timeoutMs = 120_000): Promise<string> {
  const { stdout, stderr } = await run(cmd, [...args], { timeout: timeoutMs, encoding: "utf8" });
  return `${stdout}${stderr}`.trim();
}
const ok = async (cmd: string, args: readonly string[], timeoutMs = 10_000): Promise<boolean> => {
  try {
    await sh(cmd, args, timeoutMs);
    return true;
  } catch {
    return false;
  }
};

const KAFKA_SCRIPT = (): string => join(REPO, "scripts", "kafka");
const pgVersion = (): string => readdirSync("/etc/postgresql").sort()[0] ?? "15";
const pgUrl = new URL(URLS.pg);
const myUrl = new URL(URLS.mysql);

export async function isUp(service: Service): Promise<boolean> {
  switch (service) {
    case "postgres":
      return ok("pg_isready", ["-q", "-h", pgUrl.hostname, "-p", pgUrl.port || "5432"]);
    case "mariadb":
      return ok("mysqladmin", ["-h", myUrl.hostname, "-P", myUrl.port || "3306", "-uroot", "--connect-timeout=2", "ping"]);
    case "kafka":
      return ok(KAFKA_SCRIPT(), ["status"]);
  }
}

/**
 * Throws, saying why, unless this process can stop and start `service` and the one running is the
 * one those tools manage: a broker or server someone else started on the same port is theirs
 * (`scripts/kafka start` would refuse the port, `stop` would leave their broker up).
 */
export async function checkControl(service: Service): Promise<void> {
  const tools = async (...names: string[]) => {
    for (const t of names) if (!(await ok("sh", ["-c", `command -v ${t}`]))) throw new Error(`${t} not found`);
  };
  const root = () => {
    if (process.getuid?.() !== 0) throw new Error("not root");
  };
  switch (service) {
    case "postgres":
      root();
      await tools("pg_ctlcluster", "pg_isready");
      if (!(await ok("pg_ctlcluster", [pgVersion(), "main", "status"]))) throw new Error(`pg_ctlcluster ${pgVersion()} main status: not the running server`);
      return;
    case "mariadb":
      root();
      await tools("mysqladmin", "start-stop-daemon", "pgrep");
      if (!(await ok("pgrep", ["-x", "mariadbd"]))) throw new Error("no local mariadbd process (start-stop-daemon restarts /usr/sbin/mariadbd)");
      return;
    case "kafka":
      if (!(await ok(KAFKA_SCRIPT(), ["status"]))) {
        throw new Error("this checkout's scripts/kafka broker is not running (scripts/kafka status): a broker on 127.0.0.1:9092, if any, belongs to another process");
      }
      return;
  }
}

/** The gate of a suite that stops and starts `services` (see `gateServiceControl`). */
export function gateControl(services: readonly Service[], suite: string): Promise<ServiceGate> {
  return gateServiceControl(services.join(", "), suite, async () => {
    for (const s of services) {
      try {
        await checkControl(s);
      } catch (e) {
        throw new Error(`${s}: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
  });
}

async function waitUp(service: Service, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await isUp(service))) {
    if (Date.now() > deadline) throw new Error(`${service} did not come back within ${timeoutMs} ms`);
    await sleep(250);
  }
}

export async function stopService(service: Service): Promise<void> {
  switch (service) {
    case "postgres":
      await sh("pg_ctlcluster", ["--skip-systemctl-redirect", pgVersion(), "main", "stop"]);
      return;
    case "mariadb":
      await sh("mysqladmin", ["-h", myUrl.hostname, "-P", myUrl.port || "3306", "-uroot", "shutdown"]);
      // Refusing connections comes first; wait until the server process has exited too, so the
      // start below starts a new one (start-stop-daemon --oknodo would take the old one for it).
      for (let i = 0; i < 240 && ((await isUp("mariadb")) || (await ok("pgrep", ["-x", "mariadbd"]))); i++) await sleep(250);
      return;
    case "kafka":
      await sh(KAFKA_SCRIPT(), ["stop"], 200_000);
      return;
  }
}

export async function startService(service: Service): Promise<void> {
  switch (service) {
    case "postgres":
      if (!(await isUp("postgres"))) await sh("pg_ctlcluster", ["--skip-systemctl-redirect", pgVersion(), "main", "start"]).catch(() => undefined);
      await waitUp("postgres", 60_000);
      return;
    case "mariadb":
      if (!(await isUp("mariadb"))) await sh("start-stop-daemon", ["--start", "--oknodo", "--background", "--exec", "/usr/sbin/mariadbd"]);
      await waitUp("mariadb", 60_000);
      return;
    case "kafka":
      await sh(KAFKA_SCRIPT(), ["start"], 200_000);
      return;
  }
}

export interface OutageTimes {
  readonly service: Service;
  /** How long stopping took (Kafka's controlled shutdown takes seconds). */
  readonly stopMs: number;
  /** From the service gone to the start command issued. */
  readonly downMs: number;
  /** From the start command to the service answering again. */
  readonly startMs: number;
}

/**
 * Stops `service`, keeps it down for `downMs` (running `during` meanwhile, if given), then starts
 * it again and waits until it answers — the start runs in `finally`, whatever happened.
 */
export async function outage(service: Service, downMs: number, during?: () => Promise<void>): Promise<OutageTimes> {
  const t0 = Date.now();
  let t1 = t0;
  let t2 = t0;
  try {
    await stopService(service);
    t1 = Date.now();
    await Promise.all([sleep(downMs), during?.()]);
  } finally {
    t2 = Date.now();
    await startService(service);
  }
  return { service, stopMs: t1 - t0, downMs: t2 - t1, startMs: Date.now() - t2 };
}
