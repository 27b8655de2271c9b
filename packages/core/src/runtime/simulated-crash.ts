/**
 * Thrown by a failpoint to stand for the process dying at that line. Nothing may catch and
 * continue past it: the pump rethrows it, and tests then build a new pump as a restart would.
 */
export class SimulatedCrashMarker extends Error {
  override readonly name = "SimulatedCrash";
  constructor(readonly point: string) {
    super(`simulated crash at ${point}`);
  }
}
