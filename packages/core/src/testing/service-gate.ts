/**
 * Integration suites need real services. On a developer machine without them, a suite must say
 * plainly that it did not run and why; under `MSGX_REQUIRE_SERVICES=1` (CI) a missing service is a
 * failure instead.
 */
export interface ServiceGate {
  readonly available: boolean;
  readonly reason: string;
}

export const servicesRequired = (): boolean => process.env["MSGX_REQUIRE_SERVICES"] === "1";

/**
 * Probes a service once. Returns `{ available: false }` with the reason when it is not there, after
 * printing a line that names the suite; throws when services are required.
 */
export async function gateService(service: string, suite: string, probe: () => Promise<void>): Promise<ServiceGate> {
  try {
    await probe();
    return { available: true, reason: "" };
  } catch (e) {
    const reason = `${service} is not reachable: ${e instanceof Error ? e.message : String(e)}`;
    if (servicesRequired()) throw new Error(`MSGX_REQUIRE_SERVICES=1 but ${reason} (suite: ${suite})`);
    console.warn(`[msgx] NOT RUN: ${suite} — ${reason}. Start it (see README) or set MSGX_REQUIRE_SERVICES=1 to make this a failure.`);
    return { available: false, reason };
  }
}
