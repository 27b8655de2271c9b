import { readFileSync } from "node:fs";
import { z } from "zod";
import { MsgxError } from "@msgx/core";
import { ConfigSchema, type MsgxConfig } from "./config-schema.js";
import { messageHandling } from "../app/message-handling.js";

type Tree = { [key: string]: unknown };

const toEnvName = (path: readonly string[]): string =>
  "MSGX_" + path.map((p) => p.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase()).join("_");

/** Every leaf path of the schema with its environment variable name. */
export function settingPaths(): { path: string[]; env: string }[] {
  const out: { path: string[]; env: string }[] = [];
  const walk = (schema: z.ZodType, path: string[]): void => {
    const inner = unwrap(schema);
    if (inner instanceof z.ZodObject) {
      for (const [key, child] of Object.entries(inner.shape)) walk(child as z.ZodType, [...path, key]);
    } else {
      out.push({ path, env: toEnvName(path) });
    }
  };
  walk(ConfigSchema, []);
  return out;
}

/** Looks through default/prefault/optional wrappers and transform pipes to the schema inside. */
function unwrap(schema: z.ZodType): z.ZodType {
  let s: z.ZodType = schema;
  for (;;) {
    const def = (s as unknown as { _zod: { def: { type: string; innerType?: z.ZodType; in?: z.ZodType } } })._zod.def;
    if (def.innerType && ["default", "prefault", "optional", "nullable"].includes(def.type)) s = def.innerType;
    else if (def.type === "pipe" && def.in) s = def.in;
    else return s;
  }
}

function setPath(tree: Tree, path: readonly string[], value: unknown): void {
  let node = tree;
  for (const key of path.slice(0, -1)) {
    node[key] ??= {};
    node = node[key] as Tree;
  }
  node[path.at(-1)!] = value;
}

export interface ConfigSources {
  /** Path of a JSON config file. */
  readonly file?: string | undefined;
  readonly env?: NodeJS.ProcessEnv;
  /** Values from CLI flags, highest precedence. */
  readonly overrides?: Tree;
}

/**
 * Loads the configuration: defaults < file < `MSGX_*` environment < CLI flags. Refuses unknown
 * keys and unknown `MSGX_*` variables with a message naming each one.
 */
export function loadConfig(sources: ConfigSources = {}): MsgxConfig {
  const env = sources.env ?? process.env;
  const tree: Tree = sources.file ? readJson(sources.file) : {};
  const known = new Map(settingPaths().map((s) => [s.env, s.path]));
  const unknown: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith("MSGX_") || value === undefined || value === "") continue;
    if (isNotASetting(name)) continue;
    const path = known.get(name);
    if (path) setPath(tree, path, value);
    else unknown.push(name);
  }
  if (unknown.length > 0) {
    throw new MsgxError("CONFIG", `unknown environment settings: ${unknown.join(", ")} (see .env.example)`);
  }
  for (const [key, value] of Object.entries(sources.overrides ?? {})) {
    if (value !== undefined) setPath(tree, key.split("."), value);
  }
  const parsed = ConfigSchema.safeParse(tree);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".") || "(root)"}: ${i.message}`);
    throw new MsgxError("CONFIG", `invalid configuration:\n${lines.join("\n")}`);
  }
  // A type policy the processors cannot serve is a configuration error like a bad value.
  messageHandling(parsed.data);
  return checkProfile(parsed.data);
}

/**
 * `MSGX_*` variables that are not settings: the config file's path, and what the repository's own
 * tools read (the test suites, the simulation, the benchmarks, scripts/kafka and scripts/pg-ha), so a
 * shell that exported one for a tool can still start a runner.
 */
const NOT_SETTINGS = new Set(["MSGX_CONFIG", "MSGX_REQUIRE_SERVICES", "MSGX_SEED", "MSGX_FAILPOINT", "MSGX_PG_BIN"]);
const NOT_SETTING_PREFIXES = ["MSGX_TEST_", "MSGX_MODEL_", "MSGX_SIM_", "MSGX_BENCH_", "MSGX_PG_HA_"];
const KAFKA_SCRIPT_VARIABLES = ["HOME", "VERSION", "HEAP", "CLUSTER_HEAP", "MAVEN_REPO", "START_TIMEOUT", "READY_CHECK"].map((v) => `MSGX_KAFKA_${v}`);

function isNotASetting(name: string): boolean {
  return NOT_SETTINGS.has(name) || KAFKA_SCRIPT_VARIABLES.includes(name) || NOT_SETTING_PREFIXES.some((prefix) => name.startsWith(prefix));
}

function readJson(file: string): Tree {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as Tree;
  } catch (e) {
    throw new MsgxError("CONFIG", `cannot read config file ${file}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** Production refuses anything embedded or in-memory: every dependency must be real. */
function checkProfile(config: MsgxConfig): MsgxConfig {
  if (config.profile !== "production") return config;
  const missing = [
    config.pg.url ? null : "pg.url (MSGX_PG_URL)",
    config.mysql.url ? null : "mysql.url (MSGX_MYSQL_URL)",
    config.kafka.brokers ? null : "kafka.brokers (MSGX_KAFKA_BROKERS)",
    config.http.token ? null : "http.token (MSGX_HTTP_TOKEN)",
  ].filter((m): m is string => m !== null);
  if (missing.length > 0) {
    throw new MsgxError("CONFIG", `profile production refuses embedded or in-memory stand-ins; set ${missing.join(", ")}`);
  }
  return config;
}
