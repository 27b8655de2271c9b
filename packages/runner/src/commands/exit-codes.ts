/** The exit codes of `msgx` (listed in `msgx --help` and docs/operations.md). */
export const EXIT = {
  /** A clean stop: SIGTERM/SIGINT in any phase, or a command that finished. */
  ok: 0,
  /** A failure: an error at run time, a stop that failed or outlived its deadline, a second signal. */
  failure: 1,
  /** A configuration or usage error: nothing was started. */
  config: 2,
  /** The pipeline leadership was lost (another runner took over, or this one could not renew its lease in time). */
  leadershipLost: 3,
} as const;

/** The `--help` paragraph that lists the exit codes. */
export const EXIT_CODES_HELP = [
  "Exit codes:",
  `  ${EXIT.ok}  clean stop (SIGTERM/SIGINT in any phase: starting, standby, running)`,
  `  ${EXIT.failure}  failure (an error at run time, a failed or overdue stop, a second signal)`,
  `  ${EXIT.config}  configuration or usage error (bad option, URL or config file, a port in use; nothing started)`,
  `  ${EXIT.leadershipLost}  pipeline leadership lost (another runner took over, or the lease was not renewed in time): restart to stand by`,
].join("\n");
