import { readFileSync } from "node:fs";
import { Command, Option } from "commander";
import { MsgxError } from "@msgx/core";
import { loadConfig } from "../config/load-config.js";
import type { MsgxConfig } from "../config/config-schema.js";

/** Flags every command shares: where the config comes from and which infrastructure to use. */
export function withCommonOptions(cmd: Command): Command {
  return cmd
    .option("-c, --config <file>", "JSON config file (settings: docs/configuration.md; env MSGX_CONFIG)")
    .option("--data-dir <dir>", "embedded data directory (env MSGX_DATA_DIR)")
    .option("--pg <url>", "state on real PostgreSQL, e.g. postgres://postgres@127.0.0.1:5432/test, or a primary and standby: postgres://u@db1:5432,db2:5432/msgx?target_session_attrs=read-write (env MSGX_PG_URL)")
    .option("--mysql <url>", "the real shared mailbox, e.g. mysql://root@127.0.0.1:3306/test (env MSGX_MYSQL_URL)")
    .option("--kafka <brokers>", "deliver to Kafka, e.g. 127.0.0.1:9092 (env MSGX_KAFKA_BROKERS)")
    .addOption(new Option("--profile <profile>", "embedded (default) or production (refuses stand-ins)").choices(["embedded", "production"]));
}

/** Which running runner `--url` reaches: its API (as the help names it) and where `--token` defaults from. */
export interface RemoteApi {
  readonly api: string;
  readonly tokenEnv: string;
}

/** The admin API of a running runner, behind `http.token`. */
export const ADMIN_API: RemoteApi = { api: "admin API (e.g. http://127.0.0.1:8080)", tokenEnv: "MSGX_HTTP_TOKEN" };

/** `--url`/`--token-file`: the command asks a running runner instead of opening the data itself. */
export function withRemoteOptions(cmd: Command, remote: RemoteApi = ADMIN_API): Command {
  return cmd
    .option("--url <url>", `use a running runner's ${remote.api} instead of opening the data`)
    .option("--token-file <path>", `bearer token for --url, read from this file (else env ${remote.tokenEnv})`)
    // Still accepted for scripts written against 0.1, but hidden: `ps` shows argv to every user.
    .addOption(new Option("--token <token>", "bearer token in argv (ps shows it; use --token-file)").hideHelp());
}

/** A subcommand that opens the data or, with `--url`, asks a running runner. */
export function remoteCommand(parent: Command, name: string, description: string, remote: RemoteApi = ADMIN_API): Command {
  return withRemoteOptions(withCommonOptions(parent.command(name)).description(description), remote);
}

/** A command's answer on stdout, as indented JSON. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export interface CommonFlags {
  readonly config?: string;
  readonly dataDir?: string;
  readonly pg?: string;
  readonly mysql?: string;
  readonly kafka?: string;
  readonly profile?: string;
  readonly httpHost?: string;
  readonly httpPort?: string;
  readonly shadow?: boolean;
  readonly tokenFile?: string;
}

/** The configuration of a command: file, then `MSGX_*`, then these flags. */
export function configFrom(flags: CommonFlags): MsgxConfig {
  return loadConfig({
    file: flags.config ?? process.env["MSGX_CONFIG"],
    overrides: {
      dataDir: flags.dataDir,
      "pg.url": flags.pg,
      "mysql.url": flags.mysql,
      "kafka.brokers": flags.kafka,
      profile: flags.profile,
      "http.host": flags.httpHost,
      "http.port": flags.httpPort,
      shadow: flags.shadow,
      "http.token": flags.tokenFile === undefined ? undefined : tokenFromFile(flags.tokenFile),
    },
  });
}

export interface RemoteFlags {
  readonly url?: string;
  readonly token?: string;
  readonly tokenFile?: string;
}

/** The bearer token for `--url`: `--token-file`, then `--token` (with a warning), then `fallback` (config or env). */
export function remoteToken(flags: RemoteFlags, fallback: string | undefined, warn: (line: string) => void = (l) => process.stderr.write(l)): string | undefined {
  if (flags.tokenFile !== undefined) return tokenFromFile(flags.tokenFile);
  if (flags.token !== undefined) {
    warn("msgx: --token puts the token in argv, where ps shows it to every user; use --token-file <path> or the environment\n");
    return flags.token;
  }
  return fallback;
}

/** `--token-file <path>`: the token is the file's text without its surrounding whitespace, so it never shows in argv or `ps`. */
export function tokenFromFile(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new MsgxError("CONFIG", `--token-file ${path} cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)}): give a file holding the token`);
  }
  const token = text.trim();
  if (token === "") throw new MsgxError("CONFIG", `--token-file ${path} is empty: it must hold the token (16+ characters)`);
  return token;
}
