import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { gateServiceControl, type ServiceGate } from "@msgx/core/testing";

const run = promisify(execFile);
const SCRIPT = fileURLToPath(new URL("../../../scripts/pg-ha", import.meta.url));

/** The two nodes of `scripts/pg-ha`: a starts as the primary, b as its synchronous standby. */
export const HA_PORTS = { a: 5433, b: 5434 } as const;

/** Runs `scripts/pg-ha <command>` and returns its stdout; a non-zero exit throws with its stderr. */
export async function haCommand(command: "start" | "stop" | "status" | "kill-primary" | "promote" | "url" | "reset", timeoutMs = 120_000): Promise<string> {
  try {
    const { stdout } = await run(SCRIPT, [command], { timeout: timeoutMs, encoding: "utf8" });
    return stdout.trim();
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string; message?: string };
    throw new Error(`scripts/pg-ha ${command} failed: ${(err.stderr ?? "").trim() || err.message}`);
  }
}

export interface PgHaGate extends ServiceGate {
  /** How long `scripts/pg-ha start` took from nothing (initdb, base backup, until sync), in ms. */
  readonly startMs: number;
}

/**
 * Whether a suite may kill and promote this checkout's HA pair: it wipes the pair and starts a
 * fresh one (a primary on 5433, a synchronous standby on 5434), which it owns until it calls
 * `haCommand("reset")`. NOT RUN with the script's reason when that fails (no PostgreSQL binaries,
 * a port taken by another server…); a failure under MSGX_REQUIRE_SERVICES=1.
 */
export async function gatePgHa(suite: string): Promise<PgHaGate> {
  let startMs = 0;
  const gate = await gateServiceControl("a PostgreSQL primary with a synchronous standby (scripts/pg-ha)", suite, async () => {
    await haCommand("reset");
    const started = performance.now();
    await haCommand("start");
    startMs = performance.now() - started;
  });
  return { ...gate, startMs };
}
