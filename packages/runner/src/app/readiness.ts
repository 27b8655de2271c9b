/**
 * The runner's role as `/readyz` reports it. `msgx run` moves through these in order; the HTTP
 * server answers from the first one on.
 * - `starting`: a dependency (`dependency`) is being opened; `error` is its last failure while it
 *   is retried with backoff, absent on the first attempt.
 * - `standby`: every part opened, waiting for the pipeline leadership another runner holds.
 * - `running`: leading; ready when every dependency check passes.
 * - `stopping`: SIGTERM received; the pipeline finishes its current step and closes.
 */
export type Readiness =
  | { readonly role: "starting"; readonly dependency: string; readonly error?: string; readonly attempts: number }
  | { readonly role: "standby" }
  | { readonly role: "running" }
  | { readonly role: "stopping" };

export interface CheckResult {
  readonly name: string;
  readonly ok: boolean;
  readonly error?: string;
}

/** The `/readyz` answer: 200 only while running with every check passing, else 503 naming the role. */
export function readinessAnswer(state: Readiness, checks: readonly CheckResult[]): { status: 200 | 503; body: Record<string, unknown> } {
  if (state.role !== "running") return { status: 503, body: { ready: false, ...state } };
  const ready = checks.every((c) => c.ok);
  return { status: ready ? 200 : 503, body: { ready, role: "running", checks } };
}
