/**
 * A PostgreSQL cluster (`wal_level=logical`) and a MariaDB server (binlog on, ROW format) of a
 * benchmark's own, in temporary directories on free ports, for change-data-capture peers that need
 * server settings the shared services do not have. As root both run as their service users
 * (`postgres`, `mysql`: initdb and mariadbd refuse root), as scripts/pg-ha runs its clusters.
 * `stop()` ends the server and removes its directory; a server still running when the process
 * exits (a benchmark that failed or was interrupted) is killed and its directory removed then.
 */
import { execFile, execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import mysql from "mysql2/promise";
import { freePort } from "../../packages/runner/test/free-port.js";
import { sleep } from "../fault/infra.js";

const run = promisify(execFile);
const isRoot = process.getuid?.() === 0;

export interface OwnServer {
  readonly url: string;
  readonly port: number;
  stop(): Promise<void>;
}

/** Live servers' synchronous stops (SIGKILL, remove the directory), run when the process exits. */
const live = new Map<string, () => void>();
process.once("exit", () => {
  for (const stop of live.values()) stop();
});

/** `cmd args` as `user` when this process is root. */
function as(user: string, cmd: string, args: readonly string[]): [string, string[]] {
  return isRoot ? ["runuser", ["-u", user, "--", cmd, ...args]] : [cmd, [...args]];
}

function tempDir(prefix: string, owner: string): string {
  const dir = mkdtempSync(join("/tmp", prefix));
  if (isRoot) execFileSync("chown", [`${owner}:${owner}`, dir]);
  return dir;
}

function pgBin(): string {
  const root = "/usr/lib/postgresql";
  const version = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a))[0] : undefined;
  const bin = process.env["MSGX_PG_BIN"] ?? (version ? join(root, version, "bin") : "");
  if (!existsSync(join(bin, "initdb"))) throw new Error(`no PostgreSQL binaries at ${bin || `${root}/*/bin`} (set MSGX_PG_BIN)`);
  return bin;
}

/** A PostgreSQL cluster of its own: initdb, `wal_level=logical`, trust on 127.0.0.1. */
export async function startOwnPostgres(): Promise<OwnServer> {
  const bin = pgBin();
  const dir = tempDir("msgx-cdc-pg-", "postgres");
  const data = join(dir, "data");
  const port = await freePort();
  const pgCtl = (...args: string[]) => as("postgres", join(bin, "pg_ctl"), ["-D", data, ...args]);
  const stopSync = () => {
    try {
      execFileSync(...pgCtl("-m", "immediate", "-w", "stop"), { stdio: "ignore" });
    } catch {
      // Not running.
    }
    rmSync(dir, { recursive: true, force: true });
  };
  live.set(dir, stopSync);
  try {
    await run(...as("postgres", join(bin, "initdb"), ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"]));
    const options = [`-p ${port}`, "-c listen_addresses=127.0.0.1", `-k ${dir}`, "-c wal_level=logical", "-c max_wal_senders=4", "-c max_replication_slots=4"].join(" ");
    await run(...pgCtl("-l", join(dir, "server.log"), "-o", options, "-w", "-t", "60", "start"));
  } catch (e) {
    live.delete(dir);
    stopSync();
    throw e;
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    stop: async () => {
      live.delete(dir);
      await run(...pgCtl("-m", "fast", "-w", "stop")).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A MariaDB server of its own with the binlog on (ROW), root without a password, database `test`.
 * With `versionPrefix` the server reports `<prefix>-<its version>` (MariaDB's `--version=`):
 * Debezium's MySQL connector reads a major version above 8 as MySQL ≥ 8.4 and refuses a server
 * that then lacks `SHOW BINARY LOG STATUS`, which MariaDB does.
 */
export async function startOwnMariadb(versionPrefix?: string): Promise<OwnServer & { readonly version: string }> {
  const dir = tempDir("msgx-cdc-mariadb-", "mysql");
  const data = join(dir, "data");
  const port = await freePort();
  let server: ChildProcess | undefined;
  const stopSync = () => {
    server?.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  };
  live.set(dir, stopSync);
  const url = `mysql://root@127.0.0.1:${port}/test`;
  const version = /Ver (\S+)/.exec(execFileSync("/usr/sbin/mariadbd", ["--version"], { encoding: "utf8" }))?.[1] ?? "unknown";
  try {
    const user = isRoot ? ["--user=mysql"] : [];
    const reported = versionPrefix ? [`--version=${versionPrefix}-${version}`] : [];
    await run("mariadb-install-db", ["--no-defaults", `--datadir=${data}`, ...user, "--auth-root-authentication-method=normal", "--skip-test-db"]);
    server = spawn(
      "/usr/sbin/mariadbd",
      ["--no-defaults", `--datadir=${data}`, `--socket=${join(dir, "sock")}`, `--port=${port}`, "--bind-address=127.0.0.1", `--log-bin=${join(dir, "binlog")}`, "--binlog-format=ROW", "--server-id=1", `--log-error=${join(dir, "server.log")}`, ...user, ...reported],
      { stdio: "ignore" },
    );
    const exited = new Promise<never>((_, reject) => server!.once("exit", (code) => reject(new Error(`mariadbd exited (${code}); see ${join(dir, "server.log")}`))));
    exited.catch(() => undefined);
    const deadline = Date.now() + 60_000;
    for (;;) {
      const ok = await Promise.race([
        mysql.createConnection({ host: "127.0.0.1", port, user: "root", connectTimeout: 1_000 }).then(
          async (c) => {
            await c.query("CREATE DATABASE IF NOT EXISTS test");
            await c.end();
            return true;
          },
          () => false,
        ),
        exited,
      ]);
      if (ok) break;
      if (Date.now() > deadline) throw new Error(`mariadbd on ${port} did not answer within 60 s`);
      await sleep(200);
    }
  } catch (e) {
    live.delete(dir);
    stopSync();
    throw e;
  }
  return {
    url,
    port,
    version,
    stop: async () => {
      live.delete(dir);
      const s = server!;
      if (s.exitCode === null && s.signalCode === null) {
        const gone = new Promise((r) => s.once("exit", r));
        s.kill("SIGTERM");
        await Promise.race([gone, sleep(30_000).then(() => s.kill("SIGKILL"))]);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
