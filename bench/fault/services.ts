/**
 * Stops and starts the local services for the fault battery's outages. Each outage is short and
 * always ends with the service started again and answering (`outage` restarts it in `finally`):
 * other suites use the same services.
 *
 * - PostgreSQL: `pg_ctlcluster --skip-systemctl-redirect <version> main stop|start` (fast shutdown:
 *   every session is terminated).
 * - MariaDB: `mysqladmin -uroot shutdown`; `start-stop-daemon --start --background --exec /usr/sbin/mariadbd`.
 * - Kafka: `scripts/kafka stop|start` (a controlled shutdown; start waits until the broker answers).
 */
import { execFile } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
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
      return ok(join(REPO, "scripts", "kafka"), ["status"]);
  }
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
      await sh(join(REPO, "scripts", "kafka"), ["stop"], 200_000);
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
      await sh(join(REPO, "scripts", "kafka"), ["start"], 200_000);
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
