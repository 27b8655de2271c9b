/**
 * Named failpoints for the fault battery: `MSGX_FAILPOINT=<name>[@<n>]` kills the process with
 * SIGKILL the n-th time (default 1st) execution reaches that point — a crash at an exact line.
 * Names: `pump.before-commit` (inside the pipeline transaction), `pump.after-commit` (committed,
 * mailbox not yet backfilled), `dispatch.after-send` / `schd.after-send` (broker acknowledged,
 * outbox not yet marked). Unset in production; the variable is test-only and not a setting.
 */
export function failpointFromEnv(env: NodeJS.ProcessEnv = process.env): ((name: string) => void) | undefined {
  const spec = env["MSGX_FAILPOINT"];
  if (!spec) return undefined;
  const [point, nth] = spec.split("@");
  let left = Math.max(1, Number(nth ?? 1) || 1);
  return (name: string) => {
    if (name !== point) return;
    left -= 1;
    if (left === 0) {
      process.stderr.write(`msgx: failpoint ${name} reached: SIGKILL\n`);
      process.kill(process.pid, "SIGKILL");
    }
  };
}
