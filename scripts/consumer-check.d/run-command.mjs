import { spawnSync } from "node:child_process";

/** The environment of every command: no colour codes in the output a failed step quotes. */
const plainEnv = { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" };

/**
 * Runs a command to its end and gives its combined output; a non-zero exit, a signal or a timeout
 * throws an Error naming the command and ending with the output's last lines, so a failed step
 * shows why.
 */
export function runCommand(command, args, { cwd, timeoutMs = 600_000, env = plainEnv, tailLines = 40 } = {}) {
  const r = run(command, args, { cwd, timeoutMs, env });
  if (!r.ok) throw new Error(`${command} ${args.map(short).join(" ")} (in ${cwd}): ${r.why}\n${lastLines(r.output, tailLines)}`);
  return r.output;
}

/** Like runCommand, but a failure is returned, not thrown: `{ ok, output }`, the output ending with why it failed. */
export function tryCommand(command, args, { cwd, timeoutMs = 600_000, env = plainEnv } = {}) {
  const r = run(command, args, { cwd, timeoutMs, env });
  return { ok: r.ok, output: r.ok ? r.output : `${r.output.trimEnd()}\n(${command}: ${r.why})` };
}

function run(command, args, { cwd, timeoutMs, env }) {
  const r = spawnSync(command, args, { cwd, env, encoding: "utf8", timeout: timeoutMs, maxBuffer: 256 * 1024 * 1024 });
  const output = `${r.stdout ?? ""}${r.stderr ?? ""}`;
  const ok = !r.error && r.status === 0;
  const why = r.error ? r.error.message : r.signal ? `killed by ${r.signal}` : `exit ${r.status}`;
  return { ok, output, why };
}

/** An argument as a failure message shows it: one line, at most 60 characters. */
const short = (arg) => {
  const line = arg.replace(/\s+/g, " ");
  return line.length > 60 ? `${line.slice(0, 57)}...` : line;
};

export function lastLines(text, n) {
  const lines = text.trimEnd().split("\n");
  return lines.slice(Math.max(0, lines.length - n)).join("\n");
}
