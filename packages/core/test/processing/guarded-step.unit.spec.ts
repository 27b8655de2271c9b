import { describe, expect, it } from "vitest";
import { closedBreaker, guardedStep, MsgxError, SimulatedCrashMarker, type LogFields, type Logger } from "@msgx/core";
import { type BreakerCell, type StepGuard } from "@msgx/core/testing";
import { ManualClock } from "@msgx/core/testing";

type Result = { readonly did: "done" } | { readonly did: "outage"; readonly error: string; readonly until: number } | { readonly did: "caught" };

function setup() {
  const clock = new ManualClock(0);
  const lines: [string, string, LogFields | undefined][] = [];
  const logger: Logger = {
    debug: () => undefined,
    info: (m, f) => void lines.push(["info", m, f]),
    warn: (m, f) => void lines.push(["warn", m, f]),
    error: (m, f) => void lines.push(["error", m, f]),
  };
  const guard: StepGuard<Result> = {
    clock,
    logger,
    policy: { initialMs: 100, maxMs: 300 },
    log: { paused: "paused", recovered: "recovered", fields: { target: "T" } },
    pauses: (e, signal) => !signal?.aborted && e instanceof MsgxError && e.kind === "DEPENDENCY_UNAVAILABLE",
    outage: (error, until) => ({ did: "outage", error, until }),
    caught: (e) => (e instanceof MsgxError && e.kind === "FENCED" ? { did: "caught" } : undefined),
  };
  const cell: BreakerCell = { breaker: closedBreaker };
  return { clock, lines, guard, cell };
}

const down = () => Promise.reject(new MsgxError("DEPENDENCY_UNAVAILABLE", "db down"));
const done = () => Promise.resolve<Result>({ did: "done" });

describe("guardedStep", () => {
  it("opens on an outage, skips the work until the probe, doubles the wait up to the cap, closes on success", async () => {
    const { clock, lines, guard, cell } = setup();
    expect(await guardedStep(cell, guard, down)).toEqual({ did: "outage", error: "db down", until: 100 });
    let ran = false;
    expect(await guardedStep(cell, guard, async () => ((ran = true), { did: "done" }))).toEqual({ did: "outage", error: "breaker open", until: 100 });
    expect(ran).toBe(false);
    clock.advance(100);
    expect(await guardedStep(cell, guard, down)).toMatchObject({ until: 300 });
    clock.advance(200);
    expect(await guardedStep(cell, guard, down)).toMatchObject({ until: 600 });
    clock.advance(300);
    const probes: boolean[] = [];
    expect(await guardedStep(cell, guard, async (_now, probing) => (probes.push(probing), { did: "done" }))).toEqual({ did: "done" });
    expect(probes).toEqual([true]);
    expect(cell.breaker).toBe(closedBreaker);
    expect(lines.map(([level, m]) => `${level} ${m}`)).toEqual(["warn paused", "warn paused", "warn paused", "info recovered"]);
    expect(lines[0]![2]).toEqual({ target: "T", error: "db down", retryAt: 100 });
    expect(lines[3]![2]).toEqual({ target: "T", outageMs: 600 });
  });

  it("rethrows what is no outage, a simulated crash and an aborted step's error; caught errors leave the breaker alone", async () => {
    const { guard, cell } = setup();
    await expect(guardedStep(cell, guard, () => Promise.reject(new MsgxError("INFRA", "bug")))).rejects.toThrow("bug");
    await expect(guardedStep(cell, guard, () => Promise.reject(new SimulatedCrashMarker("x")))).rejects.toBeInstanceOf(SimulatedCrashMarker);
    const aborted = AbortSignal.abort();
    await expect(guardedStep(cell, guard, down, aborted)).rejects.toThrow("db down");
    expect(await guardedStep(cell, guard, () => Promise.reject(new MsgxError("FENCED", "stale")))).toEqual({ did: "caught" });
    expect(cell.breaker).toBe(closedBreaker);
    expect(await guardedStep(cell, guard, done)).toEqual({ did: "done" });
  });
});
