/**
 * Integration suites need real services. On a developer machine without them, a suite must say
 * plainly that it did not run and why; under `MSGX_REQUIRE_SERVICES=1` (CI) a missing service is a
 * failure instead.
 *
 * A suite that stops and starts a service (an outage, a broker restart) needs more than a service
 * that answers: it needs one it may control. A broker or database someone else started on the
 * same port is theirs, so such a suite does not run there — the same rule, the same line.
 */
export interface ServiceGate {
  readonly available: boolean;
  readonly reason: string;
}

export const servicesRequired = (): boolean => process.env["MSGX_REQUIRE_SERVICES"] === "1";

/** What a suite does about one precondition: run, report NOT RUN (with the line to print), or fail. */
export type GateDecision =
  | { readonly verdict: "run" }
  | { readonly verdict: "not-run"; readonly reason: string; readonly line: string }
  | { readonly verdict: "fail"; readonly reason: string; readonly error: string };

/** The one rule: no problem runs; a problem is NOT RUN, or a failure when services are required. */
export function decideGate(suite: string, problem: string | undefined, required: boolean): GateDecision {
  if (problem === undefined) return { verdict: "run" };
  if (required) return { verdict: "fail", reason: problem, error: `MSGX_REQUIRE_SERVICES=1 but ${problem} (suite: ${suite})` };
  return {
    verdict: "not-run",
    reason: problem,
    line: `[msgx] NOT RUN: ${suite} — ${problem}. Start it (see README) or set MSGX_REQUIRE_SERVICES=1 to make this a failure.`,
  };
}

async function gate(suite: string, check: () => Promise<void>, problem: (detail: string) => string): Promise<ServiceGate> {
  let found: string | undefined;
  try {
    await check();
  } catch (e) {
    found = problem(e instanceof Error ? e.message : String(e));
  }
  const decision = decideGate(suite, found, servicesRequired());
  switch (decision.verdict) {
    case "run":
      return { available: true, reason: "" };
    case "fail":
      throw new Error(decision.error);
    case "not-run":
      console.warn(decision.line);
      return { available: false, reason: decision.reason };
  }
}

/**
 * Probes a service once. Returns `{ available: false }` with the reason when it is not there, after
 * printing a line that names the suite; throws when services are required.
 */
export function gateService(service: string, suite: string, probe: () => Promise<void>): Promise<ServiceGate> {
  return gate(suite, probe, (detail) => `${service} is not reachable: ${detail}`);
}

/**
 * For a suite that stops and starts `service`: `owned` throws, saying why, unless this process may
 * control the running service (it has the tools and rights, and the service is the one those tools
 * manage, not someone else's on the same port). Same outcomes as {@link gateService}.
 */
export function gateServiceControl(service: string, suite: string, owned: () => Promise<void>): Promise<ServiceGate> {
  return gate(suite, owned, (detail) => `cannot stop and start ${service}: ${detail}`);
}
