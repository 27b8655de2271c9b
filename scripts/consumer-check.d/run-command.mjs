import { spawnSync } from "node:child_process";

/** The environment of every command: no colour codes in the output a failed step quotes. */
const plainEnv = { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" };

/**
 * Runs a command to its end and gives its combined output; a non-zero exit, a signal or a timeout
 * throws an Error whose message ends with the output's last lines, so a failed step shows why.
 */
export function runCommand(command, args, { cwd, timeoutMs = 600_000, env = plainEnv, tailLines = 40 } = {}) {
  const r = spawnSync(command, args, { cwd, env, encoding: "utf8", timeout: timeoutMs, maxBuffer: 256 * 1024 * 1024 });
  const output = `${r.stdout ?? ""}${r.stderr ?? ""}`;
  if (r.error || r.status !== 0) {
    const why = r.error ? r.error.message : r.signal ? `killed by ${r.signal}` : `exit ${r.status}`;
    throw new Error(`${command} ${args.join(" ")} (in ${cwd}): ${why}\n${lastLines(output, tailLines)}`);
  }
  return output;
}

/** Like runCommand, but a failure is returned, not thrown: `{ ok, output }`. */
export function tryCommand(command, args, options = {}) {
  try {
    return { ok: true, output: runCommand(command, args, { ...options, tailLines: Number.POSITIVE_INFINITY }) };
  } catch (e) {
    return { ok: false, output: e.message };
  }
}

export function lastLines(text, n) {
  const lines = text.trimEnd().split("\n");
  return lines.slice(Math.max(0, lines.length - n)).join("\n");
}
